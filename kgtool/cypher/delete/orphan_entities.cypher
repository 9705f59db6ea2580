// Delete the given entities that nothing uses any more: no fact names them, no passage
// mentions them, no document is about them, no edit has them as subject or object.
// Their linker name keys (kgtool/cypher/link/) that name no other entity go with them.
// params: $entity_ids
// returns: entity_id, name
UNWIND $entity_ids AS eid
MATCH (e:Entity {id: eid})
WHERE NOT EXISTS { (e)-[:SUBJECT_OF]->(:Fact) } AND NOT EXISTS { (:Fact)-[:OBJECT]->(e) }
  AND NOT EXISTS { (:Passage)-[:MENTIONS]->(e) } AND NOT EXISTS { (:Document)-[:ABOUT]->(e) }
  AND NOT EXISTS { MATCH (ed:Edit) WHERE ed.subject_id = eid OR ed.object_id = eid }
WITH e, e.id AS entity_id, e.name AS name, COLLECT { MATCH (k:NameKey)-[:NAMES]->(e) RETURN k } AS keys
DETACH DELETE e
WITH collect({id: entity_id, name: name}) AS gone, collect(keys) AS key_lists
CALL (key_lists) {
  UNWIND key_lists AS ks
  UNWIND ks AS k
  WITH DISTINCT k
  WHERE NOT EXISTS { (k)-[:NAMES]->() }
  DELETE k
}
UNWIND gone AS g
RETURN g.id AS entity_id, g.name AS name
