// Delete the (:Ingest) markers of deleted source files: what they said finished or not is gone.
// params: $source_ids (resolved paths)
// returns: nothing
MATCH (i:Ingest)
WHERE i.source IN $source_ids
DETACH DELETE i
