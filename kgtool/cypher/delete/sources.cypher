// Delete Source nodes (files) with the STATES links to the facts they stated.
// params: $source_ids
// returns: source_id
UNWIND $source_ids AS sid
MATCH (s:Source {id: sid})
DETACH DELETE s
RETURN sid AS source_id
