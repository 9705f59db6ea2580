// Ingests that recorded their start and never their end (the client or the server was killed, or it
// failed): the store holds part of what the file says. Re-running the same ingest finishes it.
// params: none
// returns: id, kind, source, started_at
MATCH (i:Ingest)
WHERE i.finished_at IS NULL
RETURN i.id AS id, i.kind AS kind, i.source AS source, toString(i.started_at) AS started_at
ORDER BY i.started_at
