// Add LLM prompt trims (prompts shortened to fit the model's context) to a step already written:
// those made after a run's last step (a critic or reader reading it), stored when the run closes.
// params: $step_id, $trims (list of JSON strings, one per trimmed prompt)
// returns: step_id
MATCH (s:Step {id: $step_id})
SET s.prompt_trims = coalesce(s.prompt_trims, []) + $trims
RETURN s.id AS step_id
