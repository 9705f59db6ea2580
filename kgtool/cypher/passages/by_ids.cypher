// Passages by id (those that exist), with their title and text.
// params: $ids
// returns: passage_id, title, text
UNWIND $ids AS pid
MATCH (p:Passage {id: pid})
RETURN p.id AS passage_id, p.title AS title, p.text AS text
