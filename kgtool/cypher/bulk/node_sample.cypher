// The property maps of the first $limit nodes with the label $label, by id (or key):
// what a bulk load and a streaming ingest of the same file are compared on.
// params: $label, $limit
// returns: props
MATCH (n)
WHERE $label IN labels(n)
WITH n ORDER BY coalesce(n.id, n.key) LIMIT $limit
RETURN properties(n) AS props
