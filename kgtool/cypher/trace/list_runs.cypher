// Stored runs, newest first, optionally of one method and/or one status (`kgtool trace list`).
// params: $method (a method name or null for any), $status (a run status or null for any), $limit (an integer)
// returns: run_id, started_at (ISO text, whole seconds), method, agents, status, latency_ms (whole ms), question, answer
MATCH (r:Run)
WHERE ($method IS NULL OR r.method = $method) AND ($status IS NULL OR r.status = $status)
RETURN r.id AS run_id, toString(datetime.truncate('second', r.started_at)) AS started_at, r.method AS method,
       r.agents AS agents, r.status AS status, toInteger(round(r.latency_ms)) AS latency_ms,
       r.question AS question, r.answer AS answer
ORDER BY r.started_at DESC
LIMIT $limit
