// The current chain of a run, read back for the critic: the given steps in hop
// order with their chosen fact, or chosen passage, or neither (generated hops).
// params: $step_ids
// returns: step_id, hop, attempt, query, entity_id, entity, answer_id, answer, generated,
//          fact_id, head_id, head, relation, relation_key, relation_id, tail_id, tail, evidence, passage_id,
//          stated (the chosen fact's, as hop/candidates reads it; false without a fact)
UNWIND $step_ids AS sid
MATCH (s:Step {id: sid})
OPTIONAL MATCH (s)-[:CHOSE]->(f:Fact)
OPTIONAL MATCH (h:Entity)-[:SUBJECT_OF]->(f)-[:OBJECT]->(t:Entity)
OPTIONAL MATCH (s)-[:CHOSE]->(p:Passage)
RETURN s.id AS step_id, s.hop AS hop, s.attempt AS attempt, s.query AS query, s.entity_id AS entity_id,
       s.entity AS entity, s.answer_id AS answer_id, s.answer AS answer, coalesce(s.generated, false) AS generated,
       f.id AS fact_id, h.id AS head_id, h.name AS head, f.relation AS relation, f.relation_key AS relation_key,
       f.relation_id AS relation_id, t.id AS tail_id, t.name AS tail, coalesce(f.evidence, p.text) AS evidence, p.id AS passage_id,
       f IS NOT NULL AND (f.source IN ['edit', 'base'] OR EXISTS { (:Edit)-[:ASSERTS]->(f) } OR EXISTS { (:Source)-[:STATES]->(f) }) AS stated
ORDER BY s.hop
