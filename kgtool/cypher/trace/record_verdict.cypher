// Record a critic verdict on a chain, attached to the failed step (or the last
// step when the chain is valid). The verdict that ends the loop also closes the
// run ($finish: the answer, status, cost, and which steps form the final chain),
// so a run ends with one write; $finish is null for the verdicts before it.
// params: $run_id, $verdict_id, $step_id, $valid, $error_type, $failed_hop, $explanation, $round,
//         $finish (null, or {answer, answer_id, status, latency_ms, tokens, prompt_tokens,
//                  completion_tokens, llm_calls, backtracks, chain_step_ids})
// returns: verdict_id
MATCH (r:Run {id: $run_id})
CREATE (v:Verdict {id: $verdict_id, valid: $valid, error_type: $error_type, failed_hop: $failed_hop,
                   explanation: $explanation, round: $round, created_at: datetime()})
CREATE (r)-[:HAS_VERDICT]->(v)
WITH r, v
CALL (v) {
  MATCH (s:Step {id: $step_id})
  CREATE (v)-[:ON]->(s)
}
CALL (r) {
  WITH r WHERE $finish IS NOT NULL
  SET r.answer = $finish.answer, r.answer_id = $finish.answer_id, r.status = $finish.status,
      r.latency_ms = $finish.latency_ms, r.tokens = $finish.tokens, r.prompt_tokens = $finish.prompt_tokens,
      r.completion_tokens = $finish.completion_tokens, r.llm_calls = $finish.llm_calls,
      r.backtracks = $finish.backtracks, r.chain = $finish.chain_step_ids, r.finished_at = datetime()
  WITH r
  UNWIND $finish.chain_step_ids AS sid
  MATCH (r)-[:HAS_STEP]->(s:Step {id: sid})
  SET s.in_chain = true
}
RETURN v.id AS verdict_id
