// Add a perturbation's distractors: plausible wrong facts from an existing head to
// an entity that is the tail of the same relation elsewhere, with a sentence stating
// them. status 'perturbation' and source 'distractor' keep them out of every pool
// read without this perturbation (hop/candidates).
// params: $id, $rows (list of {id, head_id, tail_id, relation, relation_key, relation_id, evidence, imitates})
// returns: added
MATCH (p:Perturbation {id: $id})
UNWIND $rows AS row
MATCH (h:Entity {id: row.head_id})
MATCH (t:Entity {id: row.tail_id})
CREATE (f:Fact {id: row.id, relation: row.relation, relation_key: row.relation_key, relation_id: row.relation_id,
                evidence: row.evidence, source: 'distractor', status: 'perturbation', perturbation: $id,
                head_id: row.head_id, tail_id: row.tail_id, imitates: row.imitates})
CREATE (h)-[:SUBJECT_OF]->(f)
CREATE (f)-[:OBJECT]->(t)
CREATE (p)-[:ADDS]->(f)
RETURN count(f) AS added
