// Give entities without aliases the empty list streaming ingest stores: the importer
// reads an empty array field as no property at all.
// params: none
// returns: nothing
MATCH (e:Entity)
WHERE e.aliases IS NULL
CALL (e) { SET e.aliases = [] } IN TRANSACTIONS OF 20000 ROWS
