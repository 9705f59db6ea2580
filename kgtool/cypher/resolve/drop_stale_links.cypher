// After an undo, drop what merges had made of two slots that are no longer one: the
// links resolve/source_conflicts drew from an edit to a fact whose head is not the edit's
// subject any more, and CONFLICTS_WITH between edits of the given slots that now have
// different slots. Returns the facts whose status must be recomputed.
// params: $slots (edit slots before and after the undo)
// returns: fact_id
CALL () {
  MATCH (ed:Edit)-[r:SUPERSEDES|CONFLICTS_WITH {by: 'resolve'}]->(f:Fact)
  WHERE NOT EXISTS { MATCH (h:Entity {id: ed.subject_id})-[:SUBJECT_OF]->(f) }
  DELETE r
  WITH DISTINCT f
  SET f.conflict = CASE WHEN EXISTS { (:Edit)-[:CONFLICTS_WITH]->(f) } THEN true ELSE null END
  RETURN collect(f.id) AS fact_ids
}
CALL () {
  UNWIND $slots AS slot
  MATCH (a:Edit {slot: slot})-[c:CONFLICTS_WITH]-(b:Edit)
  WHERE a.slot <> b.slot
  DELETE c
}
UNWIND fact_ids AS fact_id
RETURN fact_id
