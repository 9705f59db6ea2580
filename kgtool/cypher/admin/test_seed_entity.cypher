// Create one bare entity (used by tests and examples that need a known node).
// params: $id, $name
// returns: id
MERGE (e:Entity {id: $id})
SET e.name = $name
RETURN e.id AS id
