// The entities that have each normalised name key, with the surface form and whether it is their primary name,
// and the entity's primary name (the planner names the linked topic next; this saves that read).
// params: $keys (list of normalised names)
// returns: key, id, surface, primary, name
UNWIND $keys AS key
MATCH (:NameKey {key: key})-[r:NAMES]->(e:Entity)
RETURN key, e.id AS id, r.surface AS surface, r.primary AS primary, e.name AS name
