// Entities no resolver pass has looked at yet (resolve/mark_checked sets e.resolve_checked):
// what an ingest just wrote, so resolving after it compares only those with the store.
// params: none
// returns: id
MATCH (e:Entity)
WHERE e.resolve_checked IS NULL
RETURN e.id AS id
