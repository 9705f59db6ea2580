// One fact with an embedding, if any: the store's facts are embedded for the graph walk's seeds
// (a document ingest does it), so facts loaded later must be embedded too.
// params: none
// returns: id (no row when no fact has an embedding)
MATCH (f:Fact)
WHERE f.embedding IS NOT NULL
RETURN f.id AS id
LIMIT 1
