// Names that several entities share (as a name or an alias), and what each is to them.
// Answering links such a name to the entity whose primary name it is, else to the
// first in id order (kgtool.ingest.linking.choose_entity).
// params: none (edit the LIMIT to see more)
// returns: name_key, entities (list of {id, name, surface, primary})
MATCH (n:NameKey)-[r:NAMES]->(e:Entity)
WITH n, collect({id: e.id, name: e.name, surface: r.surface, primary: r.primary}) AS entities
WHERE size(entities) > 1
RETURN n.key AS name_key, entities
ORDER BY size(entities) DESC, name_key
LIMIT 100
