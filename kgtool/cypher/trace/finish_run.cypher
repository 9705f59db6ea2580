// Close a run: the answer, status, cost, and which steps form the final chain.
// params: $run_id, $answer, $answer_id, $status, $latency_ms, $tokens, $prompt_tokens, $completion_tokens,
//         $llm_calls, $backtracks, $chain_step_ids
// returns: run_id
MATCH (r:Run {id: $run_id})
SET r.answer = $answer, r.answer_id = $answer_id, r.status = $status, r.latency_ms = $latency_ms,
    r.tokens = $tokens, r.prompt_tokens = $prompt_tokens, r.completion_tokens = $completion_tokens,
    r.llm_calls = $llm_calls, r.backtracks = $backtracks, r.chain = $chain_step_ids, r.finished_at = datetime()
WITH r
CALL (r) {
  UNWIND $chain_step_ids AS sid
  MATCH (r)-[:HAS_STEP]->(s:Step {id: sid})
  SET s.in_chain = true
}
RETURN r.id AS run_id
