// The names and aliases of the entities linked to some passages: those each passage
// MENTIONS and the one its document is ABOUT (for linking measurements).
// params: $ids
// returns: passage_id, names (list of strings)
UNWIND $ids AS pid
MATCH (p:Passage {id: pid})
WITH p, COLLECT { MATCH (p)-[:MENTIONS]->(e:Entity) RETURN e }
      + COLLECT { MATCH (p)<-[:HAS_PASSAGE]-(:Document)-[:ABOUT]->(e:Entity) RETURN e } AS entities
RETURN p.id AS passage_id,
       reduce(acc = [], e IN entities | acc + [e.name] + coalesce(e.aliases, [])) AS names
