// Stored edits of the given slots (the `fail` conflict policy checks a file against them).
// params: $slots (list of slot keys "subject_id<US>relation_key")
// returns: id, slot, object_id, object, batch, source
UNWIND $slots AS slot
MATCH (ed:Edit {slot: slot})
RETURN ed.id AS id, ed.slot AS slot, ed.object_id AS object_id, ed.object AS object, ed.batch AS batch,
       ed.source AS source
