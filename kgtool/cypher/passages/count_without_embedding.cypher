// How many passages have no embedding yet, or one from another model.
// params: $model
// returns: n
MATCH (p:Passage)
WHERE p.embedding IS NULL OR p.embedding_model <> $model
RETURN count(p) AS n
