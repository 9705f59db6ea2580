// Entities no resolver pass has looked at yet (resolve/mark_checked sets e.resolve_checked):
// what an ingest just wrote, so resolving after it compares only those with the store. Literal values
// (:Literal) are never resolved.
// params: none
// returns: id
MATCH (e:Entity)
WHERE e.resolve_checked IS NULL AND NOT e:Literal
RETURN e.id AS id
