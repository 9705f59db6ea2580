// Record a judge's verdict (a critic on a chain, a verifier or feedback model on
// a step), attached to the failed step (or the last step when the chain is
// valid); error_type is a member of the method's taxonomy. The verdict that ends
// the loop may also close the run (finish: the answer, status, cost, and which
// steps form the final chain), so a run ends with one write; finish is null for
// the verdicts before it.
// All parameters come in one map, $p: the server keys a cached plan by each parameter's type and size
// (0, 1, up to 10, up to 100 ... list items or characters), so lists and texts of varying length
// made new plans all along a run (0.1-1 s each on a busy machine); a map has one.
// params: $p, a map of: run_id, verdict_id, step_id, valid, taxonomy, error_type, failed_hop, explanation,
//         guidance, round,
//         finish (null, or {answer, answer_id, status, reason, error, latency_ms, load_ms, tokens, prompt_tokens,
//                  completion_tokens, llm_calls, llm_structured_calls, llm_unusable_replies, llm_unparseable_replies, llm_reasks,
//                  llm_format_fallbacks, llm_role_fallbacks, llm_trimmed_prompts, backtracks, chain_step_ids,
//                  confidence, guess})
// returns: verdict_id
MATCH (r:Run {id: $p.run_id})
CREATE (v:Verdict {id: $p.verdict_id, valid: $p.valid, taxonomy: $p.taxonomy, error_type: $p.error_type,
                   failed_hop: $p.failed_hop, explanation: $p.explanation, guidance: $p.guidance, round: $p.round,
                   created_at: datetime()})
CREATE (r)-[:HAS_VERDICT]->(v)
WITH r, v
CALL (v) {
  MATCH (s:Step {id: $p.step_id})
  CREATE (v)-[:ON]->(s)
}
CALL (r) {
  WITH r WHERE $p.finish IS NOT NULL AND r.finished_at IS NULL  // a run closed meanwhile stays closed
  SET r += $p.finish, r.finished_at = datetime()
  WITH r
  UNWIND $p.finish.chain_step_ids AS sid
  MATCH (r)-[:HAS_STEP]->(s:Step {id: sid})
  SET s.in_chain = true
}
RETURN v.id AS verdict_id
