// The slots among the given ones where the conflict statements (ingest/flag_conflicts,
// ingest/resolve_conflicts) and the slot-wide fact status recomputation can change
// anything: edits of the slot set more than one object, or some edit of it carries a
// verdict or a link (not active, superseded_by, conflict, OVERRIDES, CONFLICTS_WITH).
// Every other slot (one object, every edit active and unlinked) would come out of those
// statements exactly as it went in, so the ingest passes them over; most slots of an
// ingest are of that kind, also those that several edits set to the same object.
// params: $slots (list of slot keys "subject_id<US>relation_key")
// returns: slot
UNWIND $slots AS slot
CALL (slot) {
  MATCH (ed:Edit {slot: slot})
  RETURN count(DISTINCT ed.object_id) AS objects,
         count(CASE WHEN ed.status IS NULL OR ed.status <> 'active' OR ed.superseded_by IS NOT NULL
                         OR ed.conflict IS NOT NULL OR EXISTS { (ed)-[:OVERRIDES|CONFLICTS_WITH]-(:Edit) }
                    THEN 1 END) AS unsettled
}
WITH slot, objects, unsettled
WHERE objects > 1 OR unsettled > 0
RETURN slot
