// Record a judge's verdict (a critic on a chain, a verifier or feedback model on
// a step), attached to the failed step (or the last step when the chain is
// valid); error_type is a member of the method's taxonomy. The verdict that ends
// the loop may also close the run ($finish: the answer, status, cost, and which
// steps form the final chain), so a run ends with one write; $finish is null for
// the verdicts before it.
// params: $run_id, $verdict_id, $step_id, $valid, $taxonomy, $error_type, $failed_hop, $explanation,
//         $guidance, $round,
//         $finish (null, or {answer, answer_id, status, reason, error, latency_ms, load_ms, tokens, prompt_tokens,
//                  completion_tokens, llm_calls, llm_structured_calls, llm_unusable_replies, llm_unparseable_replies, llm_reasks,
//                  llm_format_fallbacks, llm_role_fallbacks, llm_trimmed_prompts, backtracks, chain_step_ids})
// returns: verdict_id
MATCH (r:Run {id: $run_id})
CREATE (v:Verdict {id: $verdict_id, valid: $valid, taxonomy: $taxonomy, error_type: $error_type,
                   failed_hop: $failed_hop, explanation: $explanation, guidance: $guidance, round: $round,
                   created_at: datetime()})
CREATE (r)-[:HAS_VERDICT]->(v)
WITH r, v
CALL (v) {
  MATCH (s:Step {id: $step_id})
  CREATE (v)-[:ON]->(s)
}
CALL (r) {
  WITH r WHERE $finish IS NOT NULL AND r.finished_at IS NULL  // a run closed meanwhile stays closed
  SET r += $finish, r.finished_at = datetime()
  WITH r
  UNWIND $finish.chain_step_ids AS sid
  MATCH (r)-[:HAS_STEP]->(s:Step {id: sid})
  SET s.in_chain = true
}
RETURN v.id AS verdict_id
