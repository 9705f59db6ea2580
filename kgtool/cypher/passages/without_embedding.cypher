// Passages that have no embedding yet, or one from another model, a page at a time.
// params: $model, $limit
// returns: passage_id, title, text
MATCH (p:Passage)
WHERE p.embedding IS NULL OR p.embedding_model <> $model
RETURN p.id AS passage_id, p.title AS title, p.text AS text
ORDER BY passage_id
LIMIT $limit
