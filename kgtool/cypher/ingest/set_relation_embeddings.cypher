// Store relation label embeddings (indexed by the relation_embedding vector index).
// params: $rows (list of {key, embedding, model})
// returns: nothing
UNWIND $rows AS row
MATCH (r:Relation {key: row.key})
CALL db.create.setNodeVectorProperty(r, 'embedding', row.embedding)
SET r.embedding_model = row.model
