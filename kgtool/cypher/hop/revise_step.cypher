// Backtrack to a hop: discard the rejected step's choice, open a revision of the
// step (attempt + 1) that carries the same candidate pool with the discard
// flags, and link it: (old)-[:REVISED_AS]->(new), (rejected chain end)-[:BACKTRACK]->(new),
// (the step before, if any)-[:NEXT]->(new).
// params: $old_step_id, $new_step_id, $from_step_id, $prev_step_id, $reason
// returns: step_id, hop, attempt, discarded
MATCH (old:Step {id: $old_step_id})
OPTIONAL MATCH (old)-[:CHOSE]->(rejected:Fact)
OPTIONAL MATCH (old)-[rc:CANDIDATE]->(rejected)
SET rc.discarded = true
WITH DISTINCT old
MATCH (run:Run)-[:HAS_STEP]->(old)
CREATE (new:Step {id: $new_step_id, hop: old.hop, attempt: old.attempt + 1, query: old.query,
                  entity_id: old.entity_id, entity: old.entity, gamma: old.gamma, neff: old.neff,
                  state: old.state, created_at: datetime()})
CREATE (run)-[:HAS_STEP]->(new)
CREATE (old)-[:REVISED_AS]->(new)
WITH old, new
CALL (old, new) {
  MATCH (old)-[c:CANDIDATE]->(f:Fact)
  CREATE (new)-[r:CANDIDATE]->(f)
  SET r = properties(c)
}
CALL (new) {
  MATCH (from:Step {id: $from_step_id})
  CREATE (from)-[:BACKTRACK {reason: $reason}]->(new)
}
CALL (new) {
  MATCH (prev:Step {id: $prev_step_id})
  CREATE (prev)-[:NEXT]->(new)
}
RETURN new.id AS step_id, new.hop AS hop, new.attempt AS attempt,
       COUNT { (new)-[c:CANDIDATE]->() WHERE c.discarded } AS discarded
