// Record that an ingest finished: its last write (embeddings and conflict verdicts
// included) is in, so the store holds all that the file says.
// params: $id
// returns: nothing
MATCH (i:Ingest {id: $id})
SET i.finished_at = datetime()
