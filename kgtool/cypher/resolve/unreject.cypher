// A person accepted the merge of two entities after all: forget their rejection.
// params: $pairs (list of [a_id, b_id], a_id < b_id)
// returns: removed
UNWIND $pairs AS p
MATCH (x:MergeRejection {a_id: p[0], b_id: p[1]})
DETACH DELETE x
RETURN count(*) AS removed
