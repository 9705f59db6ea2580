// Every passage with its document, for whole-collection baselines and gold matching.
// params: none
// returns: passage_id, title, text, document_id
MATCH (p:Passage)
RETURN p.id AS passage_id, p.title AS title, p.text AS text, p.document_id AS document_id
ORDER BY passage_id
