// Whether a merge can be undone, and if not why: it must exist, its survivor must still be
// an Entity (undo a later merge that absorbed the survivor first), its tombstone must be there.
// params: $merge_id
// returns: found, survivor_id, absorbed_id, survivor_name, absorbed_name, survivor_merged_by (the later
//          merge, or null), tombstone
OPTIONAL MATCH (m:EntityMerge {id: $merge_id})
RETURN m IS NOT NULL AS found, m.survivor_id AS survivor_id, m.absorbed_id AS absorbed_id,
       m.survivor_name AS survivor_name, m.absorbed_name AS absorbed_name,
       head(COLLECT { MATCH (m)-[:INTO]->(s:MergedEntity) RETURN s.merge_id }) AS survivor_merged_by,
       EXISTS { (m)-[:ABSORBED]->(:MergedEntity) } AS tombstone
