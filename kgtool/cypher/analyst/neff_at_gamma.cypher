// Recompute N_eff of stored steps from their stored candidate probabilities and
// decide sufficiency at another gamma: "which hops would resolve at gamma = 1.0?"
// Run with: kgtool cypher -f cypher/analyst/neff_at_gamma.cypher -p gamma=1.0
// params: $gamma
// (candidates may be Facts or Passages, so every method's steps count)
// returns: run_id, step_id, hop, stored_neff, neff, resolved_at_gamma, stored_state
MATCH (r:Run)-[:HAS_STEP]->(s:Step)-[c:CANDIDATE]->()
WITH r, s, collect(c.p) AS ps
WITH r, s, CASE WHEN size(ps) = 0 THEN null ELSE 1.0 / reduce(q = 0.0, p IN ps | q + p * p) END AS neff
RETURN r.id AS run_id, s.id AS step_id, s.hop AS hop, s.neff AS stored_neff, neff,
       neff IS NOT NULL AND neff <= $gamma + 0.001 AS resolved_at_gamma, s.state AS stored_state
ORDER BY r.started_at DESC, s.hop, s.attempt
