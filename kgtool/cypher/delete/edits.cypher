// Delete edits with their ASSERTS, SUPERSEDES, CONFLICTS_WITH and OVERRIDES links
// (what the facts and the other edits of their slots become is recomputed afterwards).
// params: $edit_ids
// returns: edit_id
UNWIND $edit_ids AS eid
MATCH (ed:Edit {id: eid})
DETACH DELETE ed
RETURN eid AS edit_id
