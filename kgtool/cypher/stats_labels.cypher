// Node counts by label.
// params: none
// returns: label, count
CALL db.labels() YIELD label
CALL (label) {
  MATCH (n) WHERE label IN labels(n)
  RETURN count(n) AS count
}
RETURN label, count
ORDER BY label
