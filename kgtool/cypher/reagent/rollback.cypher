// ReAgent: roll back to a checkpoint. A local rollback (agent = 'verifier') reverts
// one agent's assertions made after its checkpoint; a global one (agent null) reverts
// every agent's. Nothing is deleted: each reverted assertion is marked retracted and
// linked (a)-[:ROLLED_BACK]->(:Rollback), which names its kind, the checkpoint it went
// back to (TO) and the minimal conflict set that caused it (CONFLICT_SET).
// All parameters come in one map, $p: the server keys a cached plan by each parameter's type and size
// (0, 1, up to 10, up to 100 ... list items or characters), so lists and texts of varying length
// made new plans all along a run (0.1-1 s each on a busy machine); a map has one.
// params: $p, a map of: run_id, rollback_id, kind ('local'|'global'), agent, t, checkpoint_id, conflict_ids,
//         conflict_kind, reason
// returns: rollback_id, retracted (list of {id, kind, hop, slot, value, value_id, step_id})
MATCH (run:Run {id: $p.run_id})-[:HAS_CHECKPOINT]->(c:Checkpoint {id: $p.checkpoint_id})
CREATE (rb:Rollback {id: $p.rollback_id, run_id: $p.run_id, kind: $p.kind, agent: $p.agent, t: $p.t, to_t: c.t,
                     conflict_kind: $p.conflict_kind, reason: $p.reason, created_at: datetime()})
CREATE (run)-[:HAS_ROLLBACK]->(rb)
CREATE (rb)-[:TO]->(c)
WITH run, rb, c
CALL (run, rb) {
  UNWIND $p.conflict_ids AS cid
  MATCH (run)-[:HAS_ASSERTION]->(a:Assertion {id: cid})
  CREATE (rb)-[:CONFLICT_SET]->(a)
}
CALL (run, rb, c) {
  MATCH (run)-[:HAS_ASSERTION]->(a:Assertion {status: 'accepted'})
  WHERE a.t > c.t AND ($p.agent IS NULL OR a.agent = $p.agent)
  SET a.status = 'retracted', a.retracted_at = $p.t
  CREATE (a)-[:ROLLED_BACK]->(rb)
  WITH a
  OPTIONAL MATCH (a)-[:AT]->(s:Step)
  RETURN collect({id: a.id, kind: a.kind, hop: a.hop, slot: a.slot, value: a.value, value_id: a.value_id,
                  step_id: s.id}) AS retracted
}
RETURN rb.id AS rollback_id, retracted
