// The candidate pool of one hop: every 1-hop fact of an entity, both directions,
// active within the edit scope, with its evidence sentence.
// Scope: $cases and $batches are lists, or null for "every edit in the store".
// Within a scope, an edit fact counts only if an in-scope edit asserts it, and a
// base (pre-edit) fact counts unless an in-scope edit supersedes it.
// params: $entity_id, $cases, $batches
// returns: fact_id, head_id, head, relation, relation_key, relation_id, tail_id, tail, evidence, direction
MATCH (e:Entity {id: $entity_id})
CALL (e) {
  MATCH (e)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t:Entity)
  RETURN f, e AS h, t, 'out' AS direction
  UNION ALL
  MATCH (h:Entity)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(e)
  RETURN f, h, e AS t, 'in' AS direction
}
WITH f, h, t, direction
WHERE CASE
  WHEN $cases IS NULL AND $batches IS NULL THEN f.status = 'active'
  ELSE EXISTS {
         MATCH (ed:Edit)-[:ASSERTS]->(f)
         WHERE ($cases IS NULL OR ed.case_id IN $cases) AND ($batches IS NULL OR ed.batch IN $batches)
       }
       OR (f.source = 'base' AND NOT EXISTS {
         MATCH (ed:Edit)-[:SUPERSEDES]->(f)
         WHERE ($cases IS NULL OR ed.case_id IN $cases) AND ($batches IS NULL OR ed.batch IN $batches)
       })
  END
RETURN f.id AS fact_id, h.id AS head_id, h.name AS head, f.relation AS relation, f.relation_key AS relation_key,
       f.relation_id AS relation_id, t.id AS tail_id, t.name AS tail, f.evidence AS evidence, direction
