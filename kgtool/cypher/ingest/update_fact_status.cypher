// Recompute the status of the given facts, and of every fact the edits of the given
// slots assert or supersede, over all edits in the store:
// 'active' when an edit in force (not superseded-by-conflict) asserts it; else
// 'superseded' when some edit replaces it or only overridden edits assert it; else
// 'active'. A re-ingested retracted fact comes back the same way.
// Only facts whose status changes are written.
// (Answering within a narrower edit scope re-derives this per scope.)
// params: $fact_ids, $slots
// returns: fact_id, before, after (facts whose status changed)
CALL () {
  UNWIND $fact_ids AS fid
  MATCH (f:Fact {id: fid})
  RETURN f
  UNION
  UNWIND $slots AS slot
  MATCH (:Edit {slot: slot})-[:ASSERTS|SUPERSEDES]->(f:Fact)
  RETURN f
}
WITH f, f.status AS before, CASE
  WHEN EXISTS { MATCH (ed:Edit)-[:ASSERTS]->(f) WHERE coalesce(ed.status, 'active') <> 'superseded-by-conflict' }
    THEN 'active'
  WHEN EXISTS { (:Edit)-[:SUPERSEDES|ASSERTS]->(f) } THEN 'superseded'
  ELSE 'active' END AS status
WHERE f.status IS NULL OR f.status <> status
SET f.status = status
REMOVE f.retracted_by, f.retracted_at
RETURN f.id AS fact_id, before, status AS after
