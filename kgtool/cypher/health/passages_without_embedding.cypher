// Passages stored without an embedding (an ingest killed between writing passages and
// embedding them; dense retrieval cannot see them), with up to $limit of their ids.
// params: $limit
// returns: n, sample
MATCH (p:Passage)
WHERE p.embedding IS NULL
WITH count(p) AS n, collect(p.id)[..$limit] AS sample
RETURN n, sample
