// The entities that have each normalised name key, with the surface form and whether it is their primary name.
// params: $keys (list of normalised names)
// returns: key, id, surface, primary
UNWIND $keys AS key
MATCH (:NameKey {key: key})-[r:NAMES]->(e:Entity)
RETURN key, e.id AS id, r.surface AS surface, r.primary AS primary
