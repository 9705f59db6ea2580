// Close a run that ends without a final verdict (a method with no judge, or a
// run that failed): the answer, status, error, cost, and its final chain.
// params: $run_id, $finish ({answer, answer_id, status, error, latency_ms, load_ms, tokens, prompt_tokens,
//                            completion_tokens, llm_calls, backtracks, chain_step_ids})
// A run already closed (interrupted by a signal while its method ran on) is left as it is.
// returns: run_id
MATCH (r:Run {id: $run_id})
WHERE r.finished_at IS NULL
SET r += $finish, r.finished_at = datetime()
WITH r
CALL (r) {
  UNWIND $finish.chain_step_ids AS sid
  MATCH (r)-[:HAS_STEP]->(s:Step {id: sid})
  SET s.in_chain = true
}
RETURN r.id AS run_id
