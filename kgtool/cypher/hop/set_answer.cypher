// Set the outcome of a (revised) step: the chosen fact, or a generated answer.
// params: $step_id, $chosen_fact_id, $answer_id, $answer, $generated
// returns: step_id
MATCH (s:Step {id: $step_id})
SET s.answer_id = $answer_id, s.answer = $answer, s.generated = $generated
WITH s
CALL (s) {
  MATCH (f:Fact {id: $chosen_fact_id})
  CREATE (s)-[:CHOSE]->(f)
}
RETURN s.id AS step_id
