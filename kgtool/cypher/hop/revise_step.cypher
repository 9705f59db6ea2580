// Revise a step (any method): discard the rejected step's choice, open a revision
// (attempt + 1) that carries the same candidate pool with the discard flags, and
// link it: (old)-[:REVISED_AS {kind}]->(new), (rejected chain end)-[:BACKTRACK {kind, reason}]->(new),
// (the step before, if any)-[:NEXT]->(new). kind says what the revision is:
// reselect, fallback, local_rollback, global_rollback or plan_revision.
// All parameters come in one map, $p: the server keys a cached plan by each parameter's type and size
// (0, 1, up to 10, up to 100 ... list items or characters), so lists and texts of varying length
// made new plans all along a run (0.1-1 s each on a busy machine); a map has one.
// params: $p, a map of: old_step_id, new_step_id, from_step_id, prev_step_id, kind, reason
// returns: step_id, hop, attempt, discarded
MATCH (old:Step {id: $p.old_step_id})
OPTIONAL MATCH (old)-[:CHOSE]->(rejected)
OPTIONAL MATCH (old)-[rc:CANDIDATE]->(rejected)
SET rc.discarded = true
WITH DISTINCT old
MATCH (run:Run)-[:HAS_STEP]->(old)
CREATE (new:Step {id: $p.new_step_id, kind: old.kind, hop: old.hop, attempt: old.attempt + 1, query: old.query,
                  entity_id: old.entity_id, entity: old.entity, gamma: old.gamma, neff: old.neff,
                  state: old.state, created_at: datetime()})
CREATE (run)-[:HAS_STEP]->(new)
CREATE (old)-[:REVISED_AS {kind: $p.kind}]->(new)
WITH old, new
CALL (old, new) {
  MATCH (old)-[c:CANDIDATE]->(n)
  CREATE (new)-[r:CANDIDATE]->(n)
  SET r = properties(c)
}
CALL (new) {
  MATCH (from:Step {id: $p.from_step_id})
  CREATE (from)-[:BACKTRACK {kind: $p.kind, reason: $p.reason}]->(new)
}
CALL (new) {
  MATCH (prev:Step {id: $p.prev_step_id})
  CREATE (prev)-[:NEXT]->(new)
}
RETURN new.id AS step_id, new.hop AS hop, new.attempt AS attempt,
       COUNT { (new)-[c:CANDIDATE]->() WHERE c.discarded } AS discarded
