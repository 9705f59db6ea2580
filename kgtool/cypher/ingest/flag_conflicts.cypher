// Flag edits that set the same (subject, relation) slot to different objects.
// Both stay stored; the pair is linked by CONFLICTS_WITH and marked conflict = true.
// params: $slots (list of slot keys "subject_id<US>relation_key")
// returns: conflicts (pairs among the given slots)
UNWIND $slots AS slot
// the hints keep the planner from range-scanning the Edit(id) index for a.id < b.id,
// a plan it caches on an empty store that turns quadratic as edits accumulate
MATCH (a:Edit {slot: slot})
USING INDEX a:Edit(slot)
MATCH (b:Edit {slot: slot})
USING INDEX b:Edit(slot)
WHERE a.id < b.id AND a.object_id <> b.object_id
MERGE (a)-[:CONFLICTS_WITH]->(b)
SET a.conflict = true, b.conflict = true
RETURN count(*) AS conflicts
