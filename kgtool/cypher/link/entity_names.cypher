// Primary names of the entities with these ids.
// params: $ids
// returns: id, name
UNWIND $ids AS id
MATCH (e:Entity {id: id})
RETURN e.id AS id, e.name AS name
