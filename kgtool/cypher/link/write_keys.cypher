// Replace the name keys of a batch of entities: a NameKey per normalised name,
// NAMES carrying the surface form and whether it is the entity's primary name.
// params: $rows (list of {id, name, alias_count, keys: list of {key, surface, primary}})
// returns: nothing
UNWIND $rows AS row
MATCH (e:Entity {id: row.id})
CALL (e) {
  MATCH (e)<-[old:NAMES]-(:NameKey)
  DELETE old
}
CALL (e, row) {
  UNWIND row.keys AS k
  MERGE (n:NameKey {key: k.key})
  CREATE (n)-[:NAMES {surface: k.surface, primary: k.primary}]->(e)
}
SET e.link_name = row.name, e.link_aliases = row.alias_count
