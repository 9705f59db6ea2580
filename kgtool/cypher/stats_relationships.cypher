// Relationship counts by type.
// params: none
// returns: type, count
CALL db.relationshipTypes() YIELD relationshipType AS type
CALL (type) {
  MATCH ()-[r]->() WHERE type(r) = type
  RETURN count(r) AS count
}
RETURN type, count
ORDER BY type
