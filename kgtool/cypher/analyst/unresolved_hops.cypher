// Hops whose candidate distribution was not sufficient (N_eff > gamma), most
// ambiguous first: where more evidence or textual recovery would help.
// params: none
// returns: run_id, question, hop, attempt, query, neff, gamma, candidates
MATCH (r:Run)-[:HAS_STEP]->(s:Step)
WHERE s.state = 'unresolved'
RETURN r.id AS run_id, r.question AS question, s.hop AS hop, s.attempt AS attempt, s.query AS query,
       s.neff AS neff, s.gamma AS gamma, COUNT { (s)-[:CANDIDATE]->() } AS candidates
ORDER BY s.neff DESC
