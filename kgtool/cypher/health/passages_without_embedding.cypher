// Document passages stored without an embedding (an ingest killed between writing passages and
// embedding them; dense retrieval cannot see them), with up to $limit of their ids. The passages
// edits carry are not embedded by design and are left out.
// params: $limit
// returns: n, sample
MATCH (:Document)-[:HAS_PASSAGE]->(p:Passage)
WHERE p.embedding IS NULL
WITH count(p) AS n, collect(p.id)[..$limit] AS sample
RETURN n, sample
