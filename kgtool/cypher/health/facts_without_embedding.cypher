// Facts (not retracted) without an embedding in a document store (one with a Document) or one whose
// other facts have one: the graph walk's fact seeds cannot reach them (`kgtool ingest docs --facts
// later` left them, facts loaded after the last document ingest by an older kgtool, or an ingest
// killed while embedding them). A store of plain facts or edits embeds none, by design: an edit's
// description is a Passage too, but without a Document, so it does not make a document store
// (an edits-only store reported every fact as needing attention after a clean ingest).
// params: none
// returns: n
OPTIONAL MATCH (embedded:Fact) WHERE embedded.embedding IS NOT NULL
WITH embedded LIMIT 1
OPTIONAL MATCH (document:Document)
WITH embedded, document LIMIT 1
OPTIONAL MATCH (f:Fact)
WHERE (embedded IS NOT NULL OR document IS NOT NULL) AND f.status <> 'retracted' AND f.embedding IS NULL
RETURN count(f) AS n
