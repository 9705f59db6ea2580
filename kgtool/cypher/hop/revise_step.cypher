// Revise a step (any method): discard the rejected step's choice, open a revision
// (attempt + 1) that carries the same candidate pool with the discard flags, and
// link it: (old)-[:REVISED_AS {kind}]->(new), (rejected chain end)-[:BACKTRACK {kind, reason}]->(new),
// (the step before, if any)-[:NEXT]->(new). $kind says what the revision is:
// reselect, fallback, local_rollback, global_rollback or plan_revision.
// params: $old_step_id, $new_step_id, $from_step_id, $prev_step_id, $kind, $reason
// returns: step_id, hop, attempt, discarded
MATCH (old:Step {id: $old_step_id})
OPTIONAL MATCH (old)-[:CHOSE]->(rejected)
OPTIONAL MATCH (old)-[rc:CANDIDATE]->(rejected)
SET rc.discarded = true
WITH DISTINCT old
MATCH (run:Run)-[:HAS_STEP]->(old)
CREATE (new:Step {id: $new_step_id, kind: old.kind, hop: old.hop, attempt: old.attempt + 1, query: old.query,
                  entity_id: old.entity_id, entity: old.entity, gamma: old.gamma, neff: old.neff,
                  state: old.state, created_at: datetime()})
CREATE (run)-[:HAS_STEP]->(new)
CREATE (old)-[:REVISED_AS {kind: $kind}]->(new)
WITH old, new
CALL (old, new) {
  MATCH (old)-[c:CANDIDATE]->(n)
  CREATE (new)-[r:CANDIDATE]->(n)
  SET r = properties(c)
}
CALL (new) {
  MATCH (from:Step {id: $from_step_id})
  CREATE (from)-[:BACKTRACK {kind: $kind, reason: $reason}]->(new)
}
CALL (new) {
  MATCH (prev:Step {id: $prev_step_id})
  CREATE (prev)-[:NEXT]->(new)
}
RETURN new.id AS step_id, new.hop AS hop, new.attempt AS attempt,
       COUNT { (new)-[c:CANDIDATE]->() WHERE c.discarded } AS discarded
