// Wait until the eventually consistent full-text indexes have caught up with every
// committed write, so that passage retrieval sees what an ingestion just wrote.
// params: none
// returns: nothing
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
