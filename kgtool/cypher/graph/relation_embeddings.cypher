// The label embeddings ingestion stored for some relations (write_relation_embeddings), and the
// model that made them: answering seeds its embedder's cache with them instead of embedding each
// relation's label again. A relation without one is not returned.
// params: $keys (list of relation keys)
// returns: key, label, model, embedding
UNWIND $keys AS key
MATCH (r:Relation {key: key})
WHERE r.embedding IS NOT NULL
RETURN r.key AS key, r.label AS label, r.embedding_model AS model, r.embedding AS embedding
