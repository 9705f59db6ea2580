// SAFE: the facts the feedback has rejected so far at one step of this run's
// trajectory (chosen by an attempt whose verdict is not valid), so a retry does
// not cite them again.
// params: $run_id, $hop
// returns: fact_id
MATCH (:Run {id: $run_id})-[:HAS_VERDICT]->(v:Verdict)-[:ON]->(s:Step {hop: $hop})-[:CHOSE]->(f:Fact)
WHERE NOT v.valid
RETURN DISTINCT f.id AS fact_id
