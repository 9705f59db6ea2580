// The entities each passage names, as ingestion recorded them (Passage-[:MENTIONS]->Entity), and the
// entity its document is about, with their names and aliases: an offline reader finds these names
// in the passage's text instead of running the entity linker over every passage it reads.
// params: $ids (passage ids)
// returns: passage_id, entities (list of {id, name, aliases})
UNWIND $ids AS pid
MATCH (p:Passage {id: pid})
CALL (p) {
  MATCH (p)-[:MENTIONS]->(e:Entity)
  RETURN e
  UNION
  MATCH (p)<-[:HAS_PASSAGE]-(:Document)-[:ABOUT]->(e:Entity)
  RETURN e
}
RETURN pid AS passage_id, collect({id: e.id, name: e.name, aliases: coalesce(e.aliases, [])}) AS entities
