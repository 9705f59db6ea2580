// The pairs of entities a person kept apart by undoing their merge (resolve/reject).
// params: none
// returns: a_id, b_id
MATCH (x:MergeRejection)
RETURN x.a_id AS a_id, x.b_id AS b_id
