// Every stored fact with its endpoints, for drawing a perturbation: which facts to
// hide (those in force, i.e. active with every edit applied) and which wrong tails
// are plausible (tails of the same relation elsewhere, superseded facts included).
// Distractors of other perturbations and retracted facts (kept only for stored runs) are left out. Ordered by id, so a seed always
// draws the same perturbation from the same graph.
// params: none
// returns: fact_id, head_id, head, tail_id, tail, relation, relation_key, relation_id, evidence, in_force
MATCH (h:Entity)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t:Entity)
WHERE f.perturbation IS NULL AND coalesce(f.status, 'active') <> 'retracted'
RETURN f.id AS fact_id, h.id AS head_id, h.name AS head, t.id AS tail_id, t.name AS tail,
       f.relation AS relation, f.relation_key AS relation_key, f.relation_id AS relation_id,
       f.evidence AS evidence, f.status = 'active' AS in_force
ORDER BY fact_id
