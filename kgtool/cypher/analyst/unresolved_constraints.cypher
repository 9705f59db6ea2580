// C2RAG constraints the graph could not ground, most recent runs first: the
// pattern, what happened (unresolved: neither graph nor text bound it; recovered:
// text bound it; failed: never reached), N_eff of its structural candidates, and
// the verdict recorded on its steps.
// params: none
// returns: run_id, question, answer, index, pattern, state, source, neff, binding, error_types
MATCH (r:Run)-[:HAS_CONSTRAINT]->(k:Constraint)
WHERE k.state IN ['unresolved', 'recovered', 'failed']
OPTIONAL MATCH (k)-[:CHECKED_BY]->(s:Step)<-[:ON]-(v:Verdict)
WITH r, k, collect(DISTINCT v.error_type) AS error_types
RETURN r.id AS run_id, r.question AS question, r.answer AS answer, k.index AS index, k.pattern AS pattern,
       k.state AS state, k.source AS source, k.neff AS neff, k.binding AS binding, error_types
ORDER BY r.started_at DESC, k.index
