// Facts (not retracted) with no embedding yet, or one from another model, a page at a time,
// with the names of their two entities: the text a fact is embedded from is
// "head relation tail", the triple the graph walk matches a question against.
// params: $model, $limit
// returns: fact_id, head, relation, tail
MATCH (h:Entity)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t:Entity)
WHERE f.status <> 'retracted' AND (f.embedding IS NULL OR f.embedding_model <> $model)
RETURN f.id AS fact_id, h.name AS head, f.relation AS relation, t.name AS tail
ORDER BY fact_id
LIMIT $limit
