// SAFE's verifier: the shortest chain of facts in force (any direction) joining
// two entities, up to 3 facts long. A step that starts from an entity the path
// reaches only through facts it never cited skipped them (premature
// attribution); one with no such chain left the path's subgraph (off-topic).
// A logical step's inferred link holds only when a chain exists at all.
// In force: as in safe/check_fact (the answer's scope and perturbation).
// params: $from_id, $to_id, $cases, $batches, $perturbation
// returns: hops (facts on the shortest chain; no row when none within 3)
MATCH (a:Entity {id: $from_id}), (b:Entity {id: $to_id})
MATCH p = SHORTEST 1 (a)((x:Entity)-[:SUBJECT_OF|OBJECT]-(f:Fact)-[:SUBJECT_OF|OBJECT]-(y:Entity)
  WHERE x <> y AND CASE
    WHEN f.status = 'retracted' THEN false
    WHEN $perturbation IS NOT NULL AND f.perturbation = $perturbation THEN true
    WHEN $perturbation IS NOT NULL AND EXISTS { MATCH (:Perturbation {id: $perturbation})-[:HIDES]->(f) } THEN false
    WHEN f.source = 'distractor' THEN false
    WHEN $cases IS NULL AND $batches IS NULL THEN f.status = 'active'
    ELSE EXISTS {
           MATCH (ed:Edit)-[:ASSERTS]->(f)
           WHERE ($cases IS NULL OR ed.case_id IN $cases) AND ($batches IS NULL OR ed.batch IN $batches)
         }
         OR (f.source = 'base' AND NOT EXISTS {
           MATCH (ed:Edit)-[:SUPERSEDES]->(f)
           WHERE ($cases IS NULL OR ed.case_id IN $cases) AND ($batches IS NULL OR ed.batch IN $batches)
         })
  END){1,3}(b)
RETURN length(p) / 2 AS hops
