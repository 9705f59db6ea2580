// ReAgent: mark a checkpoint, the state of the assertion set at time step $t as one
// agent sees it ($agent = 'verifier' for the verifier's own local checkpoints) or as
// every agent sees it ($agent null: a global, consistent checkpoint). The checkpoint
// HOLDS the assertions accepted then, so a rollback knows what to keep.
// params: $run_id, $checkpoint_id, $t, $agent, $label
// returns: checkpoint_id, held
MATCH (run:Run {id: $run_id})
CREATE (c:Checkpoint {id: $checkpoint_id, run_id: $run_id, t: $t, agent: $agent, label: $label,
                      created_at: datetime()})
CREATE (run)-[:HAS_CHECKPOINT]->(c)
WITH run, c
CALL (run, c) {
  MATCH (run)-[:HAS_ASSERTION]->(a:Assertion {status: 'accepted'})
  WHERE a.t <= $t AND ($agent IS NULL OR a.agent = $agent)
  CREATE (c)-[:HOLDS]->(a)
  RETURN count(a) AS held
}
RETURN c.id AS checkpoint_id, held
