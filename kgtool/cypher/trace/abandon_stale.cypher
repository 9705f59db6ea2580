// Close the runs `trace/stale_runs` lists (still 'running', started more than $older_than seconds
// ago) as 'abandoned' with the reason; `kgtool db doctor --fix`.
// params: $older_than, $error
// returns: abandoned
MATCH (r:Run {status: 'running'})
WHERE r.finished_at IS NULL AND r.started_at < datetime() - duration({seconds: $older_than})
SET r.status = 'abandoned', r.error = $error, r.error_class = 'Stale', r.error_message = $error,
    r.finished_at = datetime()
RETURN count(r) AS abandoned
