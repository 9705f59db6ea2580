// Store fact embeddings (indexed by the fact_embedding vector index).
// params: $rows (list of {id, embedding, model})
// returns: nothing
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
CALL db.create.setNodeVectorProperty(f, 'embedding', row.embedding)
SET f.embedding_model = row.model
