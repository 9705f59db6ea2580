// Questions whose final chain used a superseded fact. Must return no rows when
// runs answer over every edit (scope 'all'); under a narrower scope a pre-edit
// fact is legitimately in force, so such runs are excluded here.
// params: none
// returns: run_id, question, hop, fact, superseded_by
MATCH (r:Run {scope: 'all'})-[:HAS_STEP]->(s:Step {in_chain: true})-[:CHOSE]->(f:Fact {status: 'superseded'})
OPTIONAL MATCH (e:Edit)-[:SUPERSEDES]->(f)
RETURN r.id AS run_id, r.question AS question, s.hop AS hop, f.evidence AS fact, collect(e.id) AS superseded_by
