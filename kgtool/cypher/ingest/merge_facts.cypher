// Create facts and attach them to their head and tail entities.
// A fact's id is derived from (head, relation key, tail), so the same triple
// stated by two edits or two files is one fact.
// params: $rows (list of {id, head_id, tail_id, relation, relation_key, relation_id, evidence, source, case_id})
// returns: nothing
UNWIND $rows AS row
MATCH (h:Entity {id: row.head_id})
MATCH (t:Entity {id: row.tail_id})
MERGE (f:Fact {id: row.id})
  ON CREATE SET f.relation = row.relation, f.relation_key = row.relation_key, f.relation_id = row.relation_id,
                f.evidence = row.evidence, f.source = row.source, f.case_id = row.case_id,
                f.head_id = row.head_id, f.tail_id = row.tail_id, f.status = 'active'
  // a triple first known as base knowledge and later asserted by an edit becomes an edit fact;
  // a retracted fact (kept only for stored runs, see cypher/delete/) stated again starts afresh
  ON MATCH SET f.source = CASE WHEN row.source = 'edit' OR f.status = 'retracted' THEN row.source ELSE f.source END,
               f.evidence = CASE WHEN (row.source = 'edit' AND f.source = 'base') OR f.status = 'retracted'
                                 THEN row.evidence ELSE f.evidence END
MERGE (h)-[:SUBJECT_OF]->(f)
MERGE (f)-[:OBJECT]->(t)
