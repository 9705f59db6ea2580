// Create or update documents and link each to the entity its title names.
// params: $rows (list of {id, title, source, entity_id (null when the document has no title)})
// returns: nothing
UNWIND $rows AS row
MERGE (d:Document {id: row.id})
SET d.title = row.title, d.source = row.source
WITH d, row
CALL (d, row) {
  MATCH (e:Entity {id: row.entity_id})
  MERGE (d)-[:ABOUT]->(e)
}
