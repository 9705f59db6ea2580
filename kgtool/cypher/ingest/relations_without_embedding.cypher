// Relations whose label has not been embedded yet.
// params: none
// returns: key, label
MATCH (r:Relation)
WHERE r.embedding IS NULL
RETURN r.key AS key, r.label AS label
