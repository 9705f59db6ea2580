// Create or update edits in one pass over the batch: each edit's properties, the order
// stamp of its first ingestion, its link to the pre-edit facts it replaces and to the
// facts it asserts.
// A new edit is stored active; ingest/resolve_conflicts changes that only for the slots
// where another edit conflicts with it (and passes over the others).
// The order stamp (the ingestion run's time, then the position in the file) is read by
// the `latest` conflict policy; re-ingesting a file keeps the first stamp, so re-runs do
// not change who wins. Rows without a stamp (ingested_at null) leave it unset.
// params: $rows (list of {id, fact_ids, props, ingested_at, position, superseded (fact ids)})
// returns: nothing
UNWIND $rows AS row
MERGE (ed:Edit {id: row.id})
  ON CREATE SET ed.status = 'active'
SET ed += row.props
FOREACH (_ IN CASE WHEN ed.ingested_at IS NULL AND row.ingested_at IS NOT NULL THEN [1] ELSE [] END |
  SET ed.ingested_at = row.ingested_at, ed.position = row.position)
WITH ed, row
CALL (ed, row) {
  UNWIND row.superseded AS old_id
  MATCH (old:Fact {id: old_id})
  MERGE (ed)-[:SUPERSEDES]->(old)
}
WITH ed, row
UNWIND row.fact_ids AS fid
MATCH (f:Fact {id: fid})
MERGE (ed)-[:ASSERTS]->(f)
