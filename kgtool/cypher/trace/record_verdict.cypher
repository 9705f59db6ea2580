// Record a critic verdict on a chain, attached to the failed step (or the last
// step when the chain is valid).
// params: $run_id, $verdict_id, $step_id, $valid, $error_type, $failed_hop, $explanation, $round
// returns: verdict_id
MATCH (r:Run {id: $run_id})
CREATE (v:Verdict {id: $verdict_id, valid: $valid, error_type: $error_type, failed_hop: $failed_hop,
                   explanation: $explanation, round: $round, created_at: datetime()})
CREATE (r)-[:HAS_VERDICT]->(v)
WITH v
CALL (v) {
  MATCH (s:Step {id: $step_id})
  CREATE (v)-[:ON]->(s)
}
RETURN v.id AS verdict_id
