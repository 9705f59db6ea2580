// Delete every node and relationship (tests and `kgtool db clear`), in batches
// so a large graph does not need one huge transaction.
// params: none
// returns: nothing
MATCH (n)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS
