// Store passage embeddings (indexed by the passage_embedding vector index).
// params: $rows (list of {id, embedding, model})
// returns: nothing
UNWIND $rows AS row
MATCH (p:Passage {id: row.id})
CALL db.create.setNodeVectorProperty(p, 'embedding', row.embedding)
SET p.embedding_model = row.model
