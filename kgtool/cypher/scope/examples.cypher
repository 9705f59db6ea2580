// A few case ids and batch names that stored edits carry, and how many there are (for an error message).
// params: $limit (how many of each to name)
// returns: cases (up to $limit case ids), case_count, batches (up to $limit batch names), batch_count
CALL () {
  MATCH (e:Edit) WHERE e.case_id IS NOT NULL
  WITH DISTINCT e.case_id AS id ORDER BY id
  RETURN collect(id) AS all_cases
}
CALL () {
  MATCH (e:Edit) WHERE e.batch IS NOT NULL
  WITH DISTINCT e.batch AS name ORDER BY name
  RETURN collect(name) AS all_batches
}
RETURN all_cases[..$limit] AS cases, size(all_cases) AS case_count,
       all_batches[..$limit] AS batches, size(all_batches) AS batch_count
