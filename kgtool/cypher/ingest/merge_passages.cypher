// Store edit descriptions as passages supporting the facts kept from them.
// params: $rows (list of {id, title, text, fact_ids})
// returns: nothing
UNWIND $rows AS row
MERGE (p:Passage {id: row.id})
SET p.title = row.title, p.text = row.text
WITH p, row
UNWIND row.fact_ids AS fid
MATCH (f:Fact {id: fid})
MERGE (p)-[:SUPPORTS]->(f)
