// Liveness probe: answers once the default database accepts queries.
// params: none
// returns: ok
RETURN 1 AS ok
