// What the graph walk needs to know of a question's linked entities: whether a document is
// about the entity (it names a topic of the collection) and its passage degree.
// params: $ids
// returns: entity_id, topic (boolean), degree
UNWIND $ids AS eid
MATCH (e:Entity {id: eid})
RETURN e.id AS entity_id, EXISTS { (e)<-[:ABOUT]-(:Document) } AS topic,
       COUNT { (e)<-[:MENTIONS]-() } + COUNT { (e)<-[:ABOUT]-(:Document)-[:HAS_PASSAGE]->() } AS degree
