// Close a run that ends without a final verdict (a method with no judge, or a
// run that failed): the answer, status, error, cost, and its final chain.
// params: $run_id, $finish ({answer, answer_id, status, reason, error, latency_ms, load_ms, tokens, prompt_tokens,
//                            completion_tokens, llm_calls, llm_structured_calls, llm_unusable_replies, llm_unparseable_replies, llm_reasks,
//                            llm_format_fallbacks, llm_role_fallbacks, llm_trimmed_prompts, backtracks, chain_step_ids,
//                            confidence, guess})
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
