// Remove a perturbation: delete its distractor facts and the Perturbation node (with
// its HIDES links). Stored facts are untouched. Steps of runs answered under it lose
// their CANDIDATE/CHOSE links to the deleted distractors; Run.perturbation keeps the id.
// No row comes back when there is no such perturbation.
// params: $id
// returns: removed (distractor facts deleted)
MATCH (p:Perturbation {id: $id})
CALL (p) {
  OPTIONAL MATCH (p)-[:ADDS]->(f:Fact)
  DETACH DELETE f
  RETURN count(f) AS removed
}
DETACH DELETE p
RETURN removed
