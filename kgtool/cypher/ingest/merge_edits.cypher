// Create or update edits in one pass over the batch: each edit's properties, the order
// stamp of its first ingestion, its description stored as a Passage, its link to the
// pre-edit facts it replaces, and its links (ASSERTS from the edit, SUPPORTS from the
// passage) to the facts it asserts.
// A new edit is stored active; ingest/resolve_conflicts changes that only for the slots
// where another edit conflicts with it (and passes over the others).
// The order stamp (the ingestion run's time, then the position in the file) is read by
// the `latest` conflict policy; re-ingesting a file keeps the first stamp, so re-runs do
// not change who wins. Rows without a stamp (ingested_at null) leave it unset.
// params: $rows (list of {id, fact_ids, props, ingested_at, position, superseded (fact ids),
//                         passage: {id, title, text}})
// returns: nothing
UNWIND $rows AS row
MERGE (ed:Edit {id: row.id})
  ON CREATE SET ed += row.props, ed.status = 'active', ed.ingested_at = row.ingested_at, ed.position = row.position
  // (the items of one SET read the values from before it: the position is set with a missing stamp)
  ON MATCH SET ed += row.props,
               ed.position = CASE WHEN ed.ingested_at IS NULL THEN row.position ELSE ed.position END,
               ed.ingested_at = coalesce(ed.ingested_at, row.ingested_at)
MERGE (p:Passage {id: row.passage.id})
SET p.title = row.passage.title, p.text = row.passage.text
WITH ed, p, row
CALL (ed, row) {
  UNWIND row.superseded AS old_id
  MATCH (old:Fact {id: old_id})
  MERGE (ed)-[:SUPERSEDES]->(old)
}
CALL (ed, p, row) {
  UNWIND row.fact_ids AS fid
  MATCH (f:Fact {id: fid})
  MERGE (ed)-[:ASSERTS]->(f)
  MERGE (p)-[:SUPPORTS]->(f)
}
