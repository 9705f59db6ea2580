// Create or update edits and link each to the facts it asserts.
// params: $rows (list of {id, fact_ids, props})
// returns: nothing
UNWIND $rows AS row
MERGE (ed:Edit {id: row.id})
SET ed += row.props
WITH ed, row
UNWIND row.fact_ids AS fid
MATCH (f:Fact {id: fid})
MERGE (ed)-[:ASSERTS]->(f)
