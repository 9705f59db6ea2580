// Link edits to the pre-edit facts they replace.
// params: $rows (list of {edit_id, fact_id})
// returns: nothing
UNWIND $rows AS row
MATCH (ed:Edit {id: row.edit_id})
MATCH (f:Fact {id: row.fact_id})
MERGE (ed)-[:SUPERSEDES]->(f)
