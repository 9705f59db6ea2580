// Recompute the status of the given facts over all edits in the store:
// 'superseded' when some edit replaces it and no edit asserts it, else 'active'.
// Only facts whose status changes are written.
// (Answering within a narrower edit scope re-derives this per scope.)
// params: $fact_ids
// returns: nothing
UNWIND $fact_ids AS fid
MATCH (f:Fact {id: fid})
WITH f, CASE
  WHEN EXISTS { (:Edit)-[:SUPERSEDES]->(f) } AND NOT EXISTS { (:Edit)-[:ASSERTS]->(f) } THEN 'superseded'
  ELSE 'active' END AS status
WHERE f.status IS NULL OR f.status <> status
SET f.status = status
