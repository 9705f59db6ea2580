// The runs recorded for a question text, newest first.
// params: $question_id
// returns: run_id, method, agents, answer, status, started_at
MATCH (r:Run {question_id: $question_id})
RETURN r.id AS run_id, r.method AS method, r.agents AS agents, r.answer AS answer, r.status AS status,
       toString(r.started_at) AS started_at
ORDER BY r.started_at DESC
