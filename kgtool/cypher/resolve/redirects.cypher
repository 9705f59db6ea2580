// The entities that merged ids now live in: a tombstone's id -> the Entity at the end of its
// SAME_AS chain. Ingest rewrites the ids of the rows it is about to write with these, so a
// file ingested again after a merge lands on the survivor instead of recreating the entity.
// params: $ids (list of entity ids)
// returns: id, survivor_id
UNWIND $ids AS id
MATCH (t:MergedEntity {id: id})
MATCH (t)-[:SAME_AS*1..20]->(e:Entity)
RETURN id, e.id AS survivor_id
