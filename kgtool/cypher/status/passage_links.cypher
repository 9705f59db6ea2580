// What a passage a hop read says of the entity the hop stood on, for the status rule's text check: the
// passage's title, whether its document is about the entity, and whether ingestion linked a mention of it.
// params: $pairs (list of {passage_id, entity_id}; entity_id may be null)
// returns: passage_id, entity_id, title, text, about, mentions
UNWIND $pairs AS pair
MATCH (p:Passage {id: pair.passage_id})
OPTIONAL MATCH (e:Entity {id: pair.entity_id})
RETURN pair.passage_id AS passage_id, pair.entity_id AS entity_id, p.title AS title, p.text AS text,
       e IS NOT NULL AND EXISTS { (p)<-[:HAS_PASSAGE]-(:Document)-[:ABOUT]->(e) } AS about,
       e IS NOT NULL AND EXISTS { (p)-[:MENTIONS]->(e) } AS mentions
