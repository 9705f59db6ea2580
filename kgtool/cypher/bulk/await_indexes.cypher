// Wait until every index (the constraints' too) is online: after a bulk import the
// schema is created over a full store and its indexes are populated in the background.
// params: $seconds (how long to wait before the server gives up)
// returns: nothing
CALL db.awaitIndexes($seconds)
