// Facts (not retracted) without an embedding in a document store (one with a Passage) or one whose
// other facts have one: the graph walk's fact seeds cannot reach them (`kgtool ingest docs --facts
// later` left them, facts loaded after the last document ingest by an older kgtool, or an ingest
// killed while embedding them). A store of plain facts embeds none, by design.
// params: none
// returns: n
OPTIONAL MATCH (embedded:Fact) WHERE embedded.embedding IS NOT NULL
WITH embedded LIMIT 1
OPTIONAL MATCH (passage:Passage)
WITH embedded, passage LIMIT 1
OPTIONAL MATCH (f:Fact)
WHERE (embedded IS NOT NULL OR passage IS NOT NULL) AND f.status <> 'retracted' AND f.embedding IS NULL
RETURN count(f) AS n
