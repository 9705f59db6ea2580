// How many edits, facts, documents and passages the store holds (from the count store: no scan),
// read before and after an ingest to tell new records from those already present.
// params: none
// returns: edits, facts, documents, passages
CALL () { MATCH (n:Edit) RETURN count(n) AS edits }
CALL () { MATCH (n:Fact) RETURN count(n) AS facts }
CALL () { MATCH (n:Document) RETURN count(n) AS documents }
CALL () { MATCH (n:Passage) RETURN count(n) AS passages }
RETURN edits, facts, documents, passages
