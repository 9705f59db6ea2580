// SAFE: the steps of a trajectory as the feedback model judges them, read back in
// the order given: each step's kind (attribution, logical, final), its entities,
// its cited fact (with both ends) and its evidence.
// params: $step_ids
// returns: step_id, kind, hop, attempt, query, entity_id, entity, answer_id, answer, generated,
//          fact_id, head_id, head, relation, relation_key, relation_id, tail_id, tail, evidence, neff, state,
//          stated (the cited fact's, as hop/candidates reads it)
UNWIND range(0, size($step_ids) - 1) AS i
MATCH (s:Step {id: $step_ids[i]})
OPTIONAL MATCH (s)-[:CHOSE]->(f:Fact)
OPTIONAL MATCH (h:Entity)-[:SUBJECT_OF]->(f)-[:OBJECT]->(t:Entity)
RETURN s.id AS step_id, s.kind AS kind, s.hop AS hop, s.attempt AS attempt, s.query AS query,
       s.entity_id AS entity_id, s.entity AS entity, s.answer_id AS answer_id, s.answer AS answer,
       coalesce(s.generated, false) AS generated, f.id AS fact_id, h.id AS head_id, h.name AS head,
       f.relation AS relation, f.relation_key AS relation_key, f.relation_id AS relation_id, t.id AS tail_id,
       t.name AS tail, coalesce(f.evidence, s.evidence) AS evidence, s.neff AS neff, s.state AS state,
       f IS NOT NULL AND (f.source IN ['edit', 'base'] OR EXISTS { (:Edit)-[:ASSERTS]->(f) } OR EXISTS { (:Source)-[:STATES]->(f) }) AS stated
ORDER BY i
