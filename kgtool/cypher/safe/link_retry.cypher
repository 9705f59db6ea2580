// SAFE: a rejected step and its retry. The retry is a step of its own (with its
// candidates); this links them as a revision: (rejected)-[:REVISED_AS {kind}]->(retry)
// and (rejected)-[:BACKTRACK {kind, reason}]->(retry), the reason holding the
// feedback (error type, diagnosis, guidance) the retry was generated with, and
// discards the rejected choice among the rejected step's candidates.
// params: $old_step_id, $new_step_id, $kind, $reason
// returns: step_id
MATCH (old:Step {id: $old_step_id}), (new:Step {id: $new_step_id})
CREATE (old)-[:REVISED_AS {kind: $kind}]->(new)
CREATE (old)-[:BACKTRACK {kind: $kind, reason: $reason}]->(new)
WITH old, new
CALL (old) {
  MATCH (old)-[:CHOSE]->(x)
  MATCH (old)-[c:CANDIDATE]->(x)
  SET c.discarded = true
}
RETURN new.id AS step_id
