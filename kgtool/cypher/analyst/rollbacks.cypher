// ReAgent's rollbacks, newest run first: local (the verifier reverting its own last
// assertions) and global (the supervisor reverting every agent to a checkpoint), with
// the minimal conflict set that caused each, the checkpoint it went back to and the
// assertions it retracted (marked retracted, never deleted).
// params: none
// returns: run_id, question, rollback_kind, conflict_kind, reason, at_t, to_t, checkpoint, conflict_set,
//          retracted, final_answer
MATCH (r:Run)-[:HAS_ROLLBACK]->(rb:Rollback)-[:TO]->(c:Checkpoint)
RETURN r.id AS run_id, r.question AS question, rb.kind AS rollback_kind, rb.conflict_kind AS conflict_kind,
       rb.reason AS reason, rb.t AS at_t, c.t AS to_t, c.label AS checkpoint,
       [(rb)-[:CONFLICT_SET]->(a:Assertion) | a.agent + ':' + a.kind + ' ' + coalesce(a.slot, '') + ' = ' +
                                              coalesce(a.value, '')] AS conflict_set,
       [(a:Assertion)-[:ROLLED_BACK]->(rb) | a.agent + ':' + a.kind + ' ' + coalesce(a.value, '')] AS retracted,
       r.answer AS final_answer
ORDER BY r.started_at DESC, at_t
