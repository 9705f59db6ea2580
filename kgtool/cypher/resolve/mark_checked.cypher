// Record that a resolver pass has compared these entities with the store
// (resolve/unchecked_entities leaves them out from now on).
// params: $ids
// returns: nothing
UNWIND $ids AS id
MATCH (e:Entity {id: id})
SET e.resolve_checked = true
