// Close a run whose method raised: status 'failed', the error's class and message,
// and where it happened (the last step the run had recorded, if any; a failure
// before the first step leaves error_step null). Only a run still open is
// touched, so a run closed by its method is never rewritten. A run ended by an interruption (Ctrl-C,
// SIGTERM, or the stop that follows one in other threads) is closed as 'interrupted', not 'failed'.
// params: $run_id, $failure ({status, error, error_class, error_message, latency_ms, load_ms, tokens,
//                             prompt_tokens, completion_tokens, llm_calls, llm_* reply counters})
// returns: run_id, error_step, error_hop
MATCH (r:Run {id: $run_id})
WHERE r.finished_at IS NULL
OPTIONAL MATCH (r)-[:HAS_STEP]->(s:Step)
WITH r, s ORDER BY s.created_at DESC, s.hop DESC, s.attempt DESC
WITH r, head(collect(s)) AS last
SET r += $failure, r.finished_at = datetime(), r.error_step = last.id, r.error_hop = last.hop,
    r.status = CASE WHEN $failure.error_class IN ['KeyboardInterrupt', 'SystemExit', 'Stopped']
                    THEN 'interrupted' ELSE $failure.status END
RETURN r.id AS run_id, r.error_step AS error_step, r.error_hop AS error_hop
