// Reselection after a critic rejection: the best stored candidate of a step that
// the selector accepted and that has not been discarded yet.
// params: $step_id
// returns: fact_id, head_id, head, relation, relation_key, relation_id, tail_id, tail, evidence, rank, score,
//          stated (as hop/candidates reads it: the candidate keeps where its fact came from)
MATCH (s:Step {id: $step_id})-[c:CANDIDATE]->(f:Fact)
WHERE c.passes AND NOT c.discarded
MATCH (h:Entity)-[:SUBJECT_OF]->(f)-[:OBJECT]->(t:Entity)
RETURN f.id AS fact_id, h.id AS head_id, h.name AS head, f.relation AS relation, f.relation_key AS relation_key,
       f.relation_id AS relation_id, t.id AS tail_id, t.name AS tail, f.evidence AS evidence,
       c.rank AS rank, c.score AS score,
       f.source IN ['edit', 'base'] OR EXISTS { (:Edit)-[:ASSERTS]->(f) } OR EXISTS { (:Source)-[:STATES]->(f) } AS stated
ORDER BY c.score DESC, c.rank ASC
LIMIT 1
