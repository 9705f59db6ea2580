// The first $limit relationships of type $type with their end nodes' ids (or keys) and
// properties, in id order: the relationship side of comparing a bulk load with streaming.
// params: $type, $limit
// returns: start, end, props
MATCH (a)-[r]->(b)
WHERE type(r) = $type
WITH coalesce(a.id, a.key) AS start, coalesce(b.id, b.key) AS end, properties(r) AS props
// two links between the same two nodes (NAMES from the keys of "fr" and "(fr)") are ordered by properties
ORDER BY start, end, props
LIMIT $limit
RETURN start, end, props
