// Stamp edits with the order they were first ingested in (the ingestion run's time,
// then their position in the file). The `latest` conflict policy reads this order;
// re-ingesting a file keeps the first stamp, so re-runs do not change who wins.
// params: $rows (list of {id, ingested_at, position})
// returns: nothing
UNWIND $rows AS row
MATCH (ed:Edit {id: row.id})
WHERE ed.ingested_at IS NULL
SET ed.ingested_at = row.ingested_at, ed.position = row.position
