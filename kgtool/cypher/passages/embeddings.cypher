// Stored embeddings of some passages (null for a passage not embedded yet).
// params: $ids
// returns: passage_id, embedding
UNWIND $ids AS pid
MATCH (p:Passage {id: pid})
RETURN p.id AS passage_id, p.embedding AS embedding
