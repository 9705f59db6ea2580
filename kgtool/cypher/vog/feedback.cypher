// VoG: O_{1:t}, the feedback of a run's steps up to hop $max_hop, for the global
// revision context: each step's chosen fact and its best $per_step candidates,
// with whether the step's latest verification passed.
// params: $run_id, $max_hop, $per_step
// returns: hop, step_id, fact_id, head, relation, tail, evidence, chosen, valid
MATCH (:Run {id: $run_id})-[:HAS_STEP]->(s:Step)
WHERE s.hop <= $max_hop
OPTIONAL MATCH (v:Verdict)-[:ON]->(s)
WITH s, v ORDER BY v.round DESC
WITH s, head(collect(v.valid)) AS valid
MATCH (s)-[c:CANDIDATE]->(f:Fact)
WHERE c.rank <= $per_step OR EXISTS { (s)-[:CHOSE]->(f) }
MATCH (h:Entity)-[:SUBJECT_OF]->(f)-[:OBJECT]->(t:Entity)
RETURN s.hop AS hop, s.id AS step_id, f.id AS fact_id, h.name AS head, f.relation AS relation, t.name AS tail,
       f.evidence AS evidence, EXISTS { (s)-[:CHOSE]->(f) } AS chosen, valid
ORDER BY hop, s.created_at, c.rank
