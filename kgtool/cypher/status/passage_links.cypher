// What a passage a hop read says of the entity the hop stood on, for the status rule's text check: the
// passage's title, whether its document is about the entity, whether ingestion linked a mention of it, and
// whether a stated fact (an edit's or a fact file's) links the entity to the hop's answer (the passage then
// chose among the graph's own candidates, as C2RAG's recovery does).
// params: $pairs (list of {passage_id, entity_id, answer_id}; entity_id and answer_id may be null)
// returns: passage_id, entity_id, title, text, about, mentions, stated_link
UNWIND $pairs AS pair
MATCH (p:Passage {id: pair.passage_id})
OPTIONAL MATCH (e:Entity {id: pair.entity_id})
OPTIONAL MATCH (a:Entity {id: pair.answer_id})
RETURN pair.passage_id AS passage_id, pair.entity_id AS entity_id, p.title AS title, p.text AS text,
       e IS NOT NULL AND EXISTS { (p)<-[:HAS_PASSAGE]-(:Document)-[:ABOUT]->(e) } AS about,
       e IS NOT NULL AND EXISTS { (p)-[:MENTIONS]->(e) } AS mentions,
       e IS NOT NULL AND a IS NOT NULL AND EXISTS {
         MATCH (e)-[:SUBJECT_OF|OBJECT]-(f:Fact)-[:SUBJECT_OF|OBJECT]-(a)
         WHERE coalesce(f.status, 'active') <> 'retracted'
           AND (f.source IN ['edit', 'base'] OR EXISTS { (:Edit)-[:ASSERTS]->(f) })
       } AS stated_link
