// Whether the graph holds any merged entity (ingest rewrites ids to survivors only then).
// params: none
// returns: merges (boolean)
RETURN EXISTS { MATCH (:MergedEntity) } AS merges
