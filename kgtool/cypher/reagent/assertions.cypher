// ReAgent: a run's assertions in time order, accepted and retracted, with the
// evidence they rest on and the rollback that retracted them (for the loop's
// assembler and supervisor, and for tests and analysts).
// params: $run_id
// returns: id, t, agent, kind, hop, slot, value, value_id, text, status, evidence_id, step_id, rollback_id
MATCH (:Run {id: $run_id})-[:HAS_ASSERTION]->(a:Assertion)
OPTIONAL MATCH (a)-[:RESTS_ON]->(e)
OPTIONAL MATCH (a)-[:AT]->(s:Step)
OPTIONAL MATCH (a)-[:ROLLED_BACK]->(rb:Rollback)
RETURN a.id AS id, a.t AS t, a.agent AS agent, a.kind AS kind, a.hop AS hop, a.slot AS slot, a.value AS value,
       a.value_id AS value_id, a.text AS text, a.status AS status, e.id AS evidence_id, s.id AS step_id,
       rb.id AS rollback_id
ORDER BY a.t, a.id
