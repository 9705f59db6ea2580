// Create or update edits and link each to the facts it asserts.
// A new edit is stored active; ingest/resolve_conflicts changes that only for the slots
// where another edit conflicts with it (and passes over the others).
// params: $rows (list of {id, fact_ids, props})
// returns: nothing
UNWIND $rows AS row
MERGE (ed:Edit {id: row.id})
  ON CREATE SET ed.status = 'active'
SET ed += row.props
WITH ed, row
UNWIND row.fact_ids AS fid
MATCH (f:Fact {id: fid})
MERGE (ed)-[:ASSERTS]->(f)
