// The first $limit relationships of type $type with their end nodes' ids (or keys) and
// properties, in id order: the relationship side of comparing a bulk load with streaming.
// params: $type, $limit
// returns: start, end, props
MATCH (a)-[r]->(b)
WHERE type(r) = $type
WITH coalesce(a.id, a.key) AS start, coalesce(b.id, b.key) AS end, properties(r) AS props
ORDER BY start, end
LIMIT $limit
RETURN start, end, props
