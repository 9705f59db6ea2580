// Set the outcome of a (revised) step: the chosen fact, or a generated answer.
// All parameters come in one map, $p: the server keys a cached plan by each parameter's type and size
// (0, 1, up to 10, up to 100 ... list items or characters), so lists and texts of varying length
// made new plans all along a run (0.1-1 s each on a busy machine); a map has one.
// params: $p, a map of: step_id, chosen_fact_id, answer_id, answer, generated
// returns: step_id
MATCH (s:Step {id: $p.step_id})
SET s.answer_id = $p.answer_id, s.answer = $p.answer, s.generated = $p.generated
WITH s
CALL (s) {
  MATCH (f:Fact {id: $p.chosen_fact_id})
  CREATE (s)-[:CHOSE]->(f)
}
RETURN s.id AS step_id
