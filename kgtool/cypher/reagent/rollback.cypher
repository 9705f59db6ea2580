// ReAgent: roll back to a checkpoint. A local rollback ($agent = 'verifier') reverts
// one agent's assertions made after its checkpoint; a global one ($agent null) reverts
// every agent's. Nothing is deleted: each reverted assertion is marked retracted and
// linked (a)-[:ROLLED_BACK]->(:Rollback), which names its kind, the checkpoint it went
// back to (TO) and the minimal conflict set that caused it (CONFLICT_SET).
// params: $run_id, $rollback_id, $kind ('local'|'global'), $agent, $t, $checkpoint_id, $conflict_ids,
//         $conflict_kind, $reason
// returns: rollback_id, retracted (list of {id, kind, hop, slot, value, value_id, step_id})
MATCH (run:Run {id: $run_id})-[:HAS_CHECKPOINT]->(c:Checkpoint {id: $checkpoint_id})
CREATE (rb:Rollback {id: $rollback_id, run_id: $run_id, kind: $kind, agent: $agent, t: $t, to_t: c.t,
                     conflict_kind: $conflict_kind, reason: $reason, created_at: datetime()})
CREATE (run)-[:HAS_ROLLBACK]->(rb)
CREATE (rb)-[:TO]->(c)
WITH run, rb, c
CALL (run, rb) {
  UNWIND $conflict_ids AS cid
  MATCH (run)-[:HAS_ASSERTION]->(a:Assertion {id: cid})
  CREATE (rb)-[:CONFLICT_SET]->(a)
}
CALL (run, rb, c) {
  MATCH (run)-[:HAS_ASSERTION]->(a:Assertion {status: 'accepted'})
  WHERE a.t > c.t AND ($agent IS NULL OR a.agent = $agent)
  SET a.status = 'retracted', a.retracted_at = $t
  CREATE (a)-[:ROLLED_BACK]->(rb)
  WITH a
  OPTIONAL MATCH (a)-[:AT]->(s:Step)
  RETURN collect({id: a.id, kind: a.kind, hop: a.hop, slot: a.slot, value: a.value, value_id: a.value_id,
                  step_id: s.id}) AS retracted
}
RETURN rb.id AS rollback_id, retracted
