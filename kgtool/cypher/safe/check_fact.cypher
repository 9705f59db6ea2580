// SAFE's verifier: is the fact a step cites in the graph, and in force in the
// answer's scope? The in-force test is the one hop retrieval applies
// (hop/candidates): a retracted fact never, a perturbation's distractor only for
// that perturbation and a fact it HIDES never, every edit in force without a
// scope, else an in-scope edit asserts it or it is a base fact no in-scope edit
// supersedes. `superseded_by` names the in-scope edit that replaced it (a step
// citing it contradicts the edited knowledge), `replacement` the fact that edit
// asserts instead (for the guidance). No row when the fact does not exist.
// params: $fact_id, $cases, $batches, $perturbation
// returns: fact_id, head_id, head, relation, relation_key, tail_id, tail, evidence, in_force, superseded_by,
//          replacement ({head, relation, tail} or null)
MATCH (h:Entity)-[:SUBJECT_OF]->(f:Fact {id: $fact_id})-[:OBJECT]->(t:Entity)
OPTIONAL CALL (f) {
  MATCH (ed:Edit)-[:SUPERSEDES]->(f)
  WHERE ($cases IS NULL OR ed.case_id IN $cases) AND ($batches IS NULL OR ed.batch IN $batches)
    AND NOT EXISTS { MATCH (ed)-[:ASSERTS]->(f) }
  OPTIONAL MATCH (ed)-[:ASSERTS]->(nf:Fact)
  OPTIONAL MATCH (nh:Entity)-[:SUBJECT_OF]->(nf)-[:OBJECT]->(nt:Entity)
  RETURN ed.id AS superseded_by,
         CASE WHEN nf IS NULL THEN null ELSE {head: nh.name, relation: nf.relation, tail: nt.name} END AS replacement
  ORDER BY ed.id
  LIMIT 1
}
WITH f, h, t, superseded_by, replacement, CASE
  WHEN f.status = 'retracted' THEN false
  WHEN $perturbation IS NOT NULL AND f.perturbation = $perturbation THEN true
  WHEN $perturbation IS NOT NULL AND EXISTS { MATCH (:Perturbation {id: $perturbation})-[:HIDES]->(f) } THEN false
  WHEN f.source = 'distractor' THEN false
  WHEN $cases IS NULL AND $batches IS NULL THEN f.status = 'active'
  ELSE EXISTS {
         MATCH (ed:Edit)-[:ASSERTS]->(f)
         WHERE ($cases IS NULL OR ed.case_id IN $cases) AND ($batches IS NULL OR ed.batch IN $batches)
           AND NOT EXISTS {
             MATCH (ed)<-[:OVERRIDES]-(w:Edit)
             WHERE ($cases IS NULL OR w.case_id IN $cases) AND ($batches IS NULL OR w.batch IN $batches)
           }
       }
       OR (f.source = 'base' AND superseded_by IS NULL)
  END AS in_force
RETURN f.id AS fact_id, h.id AS head_id, h.name AS head, f.relation AS relation, f.relation_key AS relation_key,
       t.id AS tail_id, t.name AS tail, f.evidence AS evidence, in_force,
       CASE WHEN in_force THEN null ELSE superseded_by END AS superseded_by,
       CASE WHEN in_force THEN null ELSE replacement END AS replacement
