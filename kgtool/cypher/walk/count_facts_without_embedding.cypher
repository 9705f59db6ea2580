// How many facts (not retracted) have no embedding yet, or one from another model.
// params: $model
// returns: n
MATCH (f:Fact)
WHERE f.status <> 'retracted' AND (f.embedding IS NULL OR f.embedding_model <> $model)
RETURN count(f) AS n
