// Of the given passages, those with no embedding yet or one from another model (an ingest
// batch's passages, embedded as soon as they are written).
// params: $ids, $model
// returns: passage_id, title, text
UNWIND $ids AS pid
MATCH (p:Passage {id: pid})
WHERE p.embedding IS NULL OR p.embedding_model <> $model
RETURN p.id AS passage_id, p.title AS title, p.text AS text
