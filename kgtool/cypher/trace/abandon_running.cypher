// Mark runs left 'running' by a server that stopped under them as 'abandoned': run
// when the local server has just been (re)started, so no client can still be
// answering them. Batched because a crash during a parallel evaluation can leave many.
// params: $error
// returns: abandoned
MATCH (r:Run)
WHERE r.status = 'running' AND r.finished_at IS NULL
CALL (r) {
  SET r.status = 'abandoned', r.error = $error, r.error_class = 'ServerRestarted', r.finished_at = datetime()
} IN TRANSACTIONS OF 1000 ROWS
RETURN count(r) AS abandoned
