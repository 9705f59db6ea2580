// Apply the conflict policy to every edit of the given slots, from what is stored now
// (also after edits were deleted). An edit whose conflict_policy is 'latest' OVERRIDES
// each earlier edit of its slot with a different object; an overridden edit gets
// status 'superseded-by-conflict' and superseded_by = the latest edit overriding it,
// the others status 'active'. conflict is true while a CONFLICTS_WITH link remains.
// Earlier = smaller [ingested_at, position, id] (edits stored before the stamp count as 0).
// A slot whose only edit is active, unflagged and has no OVERRIDES or CONFLICTS_WITH link
// (most slots of an ingest: new edits are stored active) has nothing to resolve: it is
// passed over without the pair search below, with the same result.
// params: $slots (list of slot keys "subject_id<US>relation_key")
// returns: edit_id, before, after, superseded_by (edits whose status or winner changed)
UNWIND $slots AS slot
WITH slot
WHERE COUNT { (:Edit {slot: slot}) } > 1
   OR EXISTS {
        MATCH (ed:Edit {slot: slot})
        WHERE ed.status IS NULL OR ed.status <> 'active' OR ed.superseded_by IS NOT NULL
           OR ed.conflict IS NOT NULL OR EXISTS { (ed)-[:OVERRIDES|CONFLICTS_WITH]-(:Edit) }
      }
CALL (slot) {
  // verdicts that no longer hold: the winner was re-ingested under another policy
  MATCH (b:Edit {slot: slot})-[o:OVERRIDES]->(a:Edit)
  WHERE NOT (b.conflict_policy = 'latest' AND a.slot = b.slot AND a.object_id <> b.object_id
             AND [coalesce(a.ingested_at, 0), coalesce(a.position, 0), a.id]
                 < [coalesce(b.ingested_at, 0), coalesce(b.position, 0), b.id])
  DELETE o
}
CALL (slot) {
  // the hints keep the pair search on the slot index (see flag_conflicts)
  MATCH (a:Edit {slot: slot})
  USING INDEX a:Edit(slot)
  MATCH (b:Edit {slot: slot})
  USING INDEX b:Edit(slot)
  WHERE b.conflict_policy = 'latest' AND a.object_id <> b.object_id
    AND [coalesce(a.ingested_at, 0), coalesce(a.position, 0), a.id]
        < [coalesce(b.ingested_at, 0), coalesce(b.position, 0), b.id]
  MERGE (b)-[:OVERRIDES]->(a)
}
MATCH (ed:Edit {slot: slot})
WITH ed, ed.status AS before,
     COLLECT {
       MATCH (ed)<-[:OVERRIDES]-(w:Edit)
       RETURN w.id ORDER BY [coalesce(w.ingested_at, 0), coalesce(w.position, 0), w.id] DESC LIMIT 1
     } AS winners,
     CASE WHEN EXISTS { (ed)-[:CONFLICTS_WITH]-(:Edit) } THEN true ELSE null END AS conflict
WITH ed, before, head(winners) AS winner, conflict,
     CASE WHEN size(winners) > 0 THEN 'superseded-by-conflict' ELSE 'active' END AS after
WHERE before IS NULL OR before <> after OR coalesce(ed.superseded_by, '') <> coalesce(winner, '')
   OR coalesce(ed.conflict, false) <> coalesce(conflict, false)
SET ed.status = after, ed.superseded_by = winner, ed.conflict = conflict
RETURN ed.id AS edit_id, before, after, winner AS superseded_by
