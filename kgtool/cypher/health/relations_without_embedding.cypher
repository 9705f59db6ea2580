// Relation labels without an embedding (an ingest stopped, or a full disk failed, between writing the facts
// and embedding their relations): the offline agents' relation matcher cannot weigh them by meaning.
// params: none
// returns: n, sample (up to 5 labels)
MATCH (r:Relation)
WHERE r.embedding IS NULL
WITH count(r) AS n, collect(r.label)[..5] AS sample
RETURN n, sample
