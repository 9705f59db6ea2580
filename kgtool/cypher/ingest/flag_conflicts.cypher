// Flag edits that set the same (subject, relation) slot to different objects.
// Both stay stored; the pair is linked by CONFLICTS_WITH and marked conflict = true.
// params: $slots (list of slot keys "subject_id<US>relation_key")
// returns: conflicts (pairs among the given slots)
UNWIND $slots AS slot
MATCH (a:Edit {slot: slot})
MATCH (b:Edit {slot: slot})
WHERE a.id < b.id AND a.object_id <> b.object_id
MERGE (a)-[:CONFLICTS_WITH]->(b)
SET a.conflict = true, b.conflict = true
RETURN count(*) AS conflicts
