// Create or update document passages (text stored once, sentence start offsets kept),
// attach them to their document, the facts read from them and the entities they mention.
// params: $rows (list of {id, document_id, title, text, sentences, position, source, fact_ids, entity_ids})
// returns: nothing
UNWIND $rows AS row
MATCH (d:Document {id: row.document_id})
MERGE (p:Passage {id: row.id})
SET p.title = row.title, p.text = row.text, p.sentences = row.sentences, p.position = row.position,
    p.document_id = row.document_id, p.source = row.source
MERGE (d)-[:HAS_PASSAGE]->(p)
WITH p, row
CALL (p, row) {
  UNWIND row.fact_ids AS fid
  MATCH (f:Fact {id: fid})
  MERGE (p)-[:SUPPORTS]->(f)
}
CALL (p, row) {
  UNWIND row.entity_ids AS eid
  MATCH (e:Entity {id: eid})
  MERGE (p)-[:MENTIONS]->(e)
}
