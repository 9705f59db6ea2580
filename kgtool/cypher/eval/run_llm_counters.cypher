// The LLM counters of the given runs, for an evaluation's per-question results (an offline run has zeros).
// params: $run_ids (list of Run ids)
// returns: run_id, role_fallbacks, unusable_replies, reasks (0 when the run has none recorded)
MATCH (r:Run)
WHERE r.id IN $run_ids
RETURN r.id AS run_id, coalesce(r.llm_role_fallbacks, 0) AS role_fallbacks,
       coalesce(r.llm_unusable_replies, 0) AS unusable_replies, coalesce(r.llm_reasks, 0) AS reasks
