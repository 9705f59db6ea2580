// Create facts, attach them to their head and tail entities, and give each its status.
// A fact's id is derived from (head, relation key, tail), so the same triple
// stated by two edits or two files is one fact.
// Status (what ingest/update_fact_status derives from the stored edits), settled here
// for what this batch's edits add: a fact an edit of the batch asserts is 'active'; one
// an edit of the batch supersedes is 'active' while some stored edit in force asserts
// it, else 'superseded'. A fact only stated (base knowledge, documents) keeps its status.
// The slots whose conflict verdicts the batch changes are settled afterwards by
// ingest/update_fact_status; an edit of the batch that asserts a fact is in force
// unless its slot is one of those.
// params: $rows (list of {id, head_id, tail_id, relation, relation_key, relation_id, evidence, source, case_id,
//                         asserted, superseded (optional booleans: an edit of the batch asserts / supersedes it)})
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
WITH f, coalesce(row.asserted, false) AS asserted, coalesce(row.superseded, false) AS superseded
WITH f, CASE
  WHEN asserted THEN 'active'
  WHEN NOT superseded AND f.status <> 'retracted' THEN f.status
  WHEN EXISTS { MATCH (ed:Edit)-[:ASSERTS]->(f) WHERE coalesce(ed.status, 'active') <> 'superseded-by-conflict' }
    THEN 'active'
  WHEN superseded OR EXISTS { (:Edit)-[:SUPERSEDES|ASSERTS]->(f) } THEN 'superseded'
  ELSE 'active' END AS status
WHERE f.status IS NULL OR f.status <> status
SET f.status = status
REMOVE f.retracted_by, f.retracted_at
