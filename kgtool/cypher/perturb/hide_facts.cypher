// Hide facts under a perturbation: (:Perturbation)-[:HIDES]->(:Fact). The facts
// themselves are untouched.
// params: $id, $fact_ids
// returns: hidden
MATCH (p:Perturbation {id: $id})
UNWIND $fact_ids AS fid
MATCH (f:Fact {id: fid})
CREATE (p)-[:HIDES]->(f)
RETURN count(f) AS hidden
