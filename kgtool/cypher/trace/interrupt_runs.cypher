// Close the runs a process still has open when it is interrupted (SIGINT, SIGTERM): status
// 'interrupted' with the reason. Only this process's runs ($owner, host:pid): other processes
// answering against the same graph go on.
// params: $owner, $error
// returns: interrupted
MATCH (r:Run {status: 'running'})
WHERE r.owner = $owner AND r.finished_at IS NULL
SET r.status = 'interrupted', r.error = $error, r.error_class = 'Interrupted', r.error_message = $error,
    r.finished_at = datetime()
RETURN count(r) AS interrupted
