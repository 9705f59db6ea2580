// Which of the given case ids and batch names some stored edit carries (a scope's names, checked).
// params: $cases (list of case ids, or null), $batches (list of batch names, or null)
// returns: cases (the given case ids that exist), batches (the given batch names that exist)
CALL (*) {
  MATCH (e:Edit) WHERE $cases IS NOT NULL AND e.case_id IN $cases
  RETURN collect(DISTINCT e.case_id) AS cases
}
CALL (*) {
  MATCH (e:Edit) WHERE $batches IS NOT NULL AND e.batch IN $batches
  RETURN collect(DISTINCT e.batch) AS batches
}
RETURN cases, batches
