// SAFE: the statement and evidence of a step that cites no stored fact (a logical
// step, a step that reports nothing found, a final answer), kept on the Step so
// the feedback model reads the step back as it was written.
// params: $step_id, $statement, $evidence
// returns: step_id
MATCH (s:Step {id: $step_id})
SET s.statement = $statement, s.evidence = $evidence
RETURN s.id AS step_id
