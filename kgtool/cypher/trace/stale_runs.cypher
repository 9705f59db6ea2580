// Runs still 'running' that started more than $older_than seconds ago: stale (their process was
// killed, or hangs), oldest first, at most $limit.
// params: $older_than, $limit
// returns: id, method, question, owner, started_at, age_s
MATCH (r:Run {status: 'running'})
WHERE r.finished_at IS NULL AND r.started_at < datetime() - duration({seconds: $older_than})
RETURN r.id AS id, r.method AS method, r.question AS question, r.owner AS owner,
       toString(r.started_at) AS started_at,
       duration.inSeconds(r.started_at, datetime()).seconds AS age_s
ORDER BY r.started_at
LIMIT $limit
