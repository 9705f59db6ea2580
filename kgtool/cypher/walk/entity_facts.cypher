// Facts joining two entities of the walk's subgraph (retracted facts left out), one row per
// ordered entity pair with how many facts join them: the entity-entity edges of the walk.
// params: $entity_ids
// returns: head_id, tail_id, facts
UNWIND $entity_ids AS eid
MATCH (h:Entity {id: eid})-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t:Entity)
WHERE t.id IN $entity_ids AND t.id <> h.id AND f.status <> 'retracted'
RETURN h.id AS head_id, t.id AS tail_id, count(f) AS facts
