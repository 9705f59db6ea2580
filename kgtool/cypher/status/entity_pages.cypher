// The answer's own pages for the status rule's text check: the first passages of the documents about
// the entity (a page's opening says what its subject is).
// params: $entity_id, $limit
// returns: passage_id, title, text
MATCH (:Entity {id: $entity_id})<-[:ABOUT]-(:Document)-[:HAS_PASSAGE]->(p:Passage)
RETURN p.id AS passage_id, p.title AS title, p.text AS text
ORDER BY p.position, p.id
LIMIT $limit
