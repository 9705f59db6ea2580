// Record which file states which base facts: (:Source)-[:STATES {evidence}]->(:Fact).
// The evidence is the file's own sentence for the fact, so the fact can get it back
// when an edit that rewrote it is deleted. `kgtool delete --source FILE` follows STATES.
// params: $rows (list of {id, props, facts: [{fact_id, evidence}]})
// returns: nothing
UNWIND $rows AS row
MERGE (s:Source {id: row.id})
SET s += row.props
WITH s, row
UNWIND row.facts AS stated
MATCH (f:Fact {id: stated.fact_id})
MERGE (s)-[st:STATES]->(f)
  ON CREATE SET st.evidence = stated.evidence
