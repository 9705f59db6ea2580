// ReAgent: a run's rollbacks in time order, for `kgtool trace show` and the trace page:
// local (one agent) or global, the checkpoint it went back to, the conflict that caused
// it and how many assertions it retracted.
// params: $run_id
// returns: id, t, kind, agent, checkpoint, to_t, conflict_kind, reason, conflict_set, retracted
MATCH (:Run {id: $run_id})-[:HAS_ROLLBACK]->(rb:Rollback)
OPTIONAL MATCH (rb)-[:TO]->(c:Checkpoint)
RETURN rb.id AS id, rb.t AS t, rb.kind AS kind, rb.agent AS agent, c.label AS checkpoint, rb.to_t AS to_t,
       rb.conflict_kind AS conflict_kind, rb.reason AS reason,
       COUNT { (rb)-[:CONFLICT_SET]->() } AS conflict_set,
       COUNT { ()-[:ROLLED_BACK]->(rb) } AS retracted
ORDER BY t, id
