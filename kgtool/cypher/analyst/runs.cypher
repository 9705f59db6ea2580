// The latest reasoning runs (`kgtool trace list` shows the same with filters).
// params: none (edit the LIMIT to see more)
// returns: run_id, question, answer, status, method, agents, scope, backtracks, latency_ms (whole ms),
//          load_ms (whole ms), tokens
MATCH (r:Run)
RETURN r.id AS run_id, r.question AS question, r.answer AS answer, r.status AS status, r.method AS method,
       r.agents AS agents, r.scope AS scope, r.backtracks AS backtracks,
       toInteger(round(r.latency_ms)) AS latency_ms, toInteger(round(r.load_ms)) AS load_ms, r.tokens AS tokens
ORDER BY r.started_at DESC
LIMIT 50
