// Give relations without phrasings the empty list streaming ingest stores (see
// bulk/empty_entity_aliases: the importer cannot write an empty array).
// params: none
// returns: nothing
MATCH (r:Relation)
WHERE r.phrases IS NULL
CALL (r) { SET r.phrases = [] } IN TRANSACTIONS OF 20000 ROWS
