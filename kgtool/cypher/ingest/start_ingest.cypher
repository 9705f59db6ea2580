// Record that an ingest of a file started (before its first write): an (:Ingest) marker
// without finished_at, which kgtool.health.unfinished_ingests reports until the ingest
// finishes. A re-run of the same ingest (same id) reopens the same marker.
// params: $id, $kind (edits, facts, docs), $source (the file's resolved path)
// returns: nothing
MERGE (i:Ingest {id: $id})
SET i.kind = $kind, i.source = $source, i.started_at = datetime()
REMOVE i.finished_at
