// Runs that revised a step, for every method, and how: the rejected step, the kind
// of revision (reselect, fallback, local_rollback, global_rollback, plan_revision),
// the judge's reason, and what the revised step chose instead.
// params: none
// returns: run_id, method, question, hop, kind, rejected_choice, reason, revised_choice, revised_generated,
//          final_answer
MATCH (r:Run)-[:HAS_STEP]->(old:Step)-[rev:REVISED_AS]->(new:Step)
OPTIONAL MATCH (from:Step)-[b:BACKTRACK]->(new)
OPTIONAL MATCH (old)-[:CHOSE]->(f_old)
OPTIONAL MATCH (new)-[:CHOSE]->(f_new)
RETURN r.id AS run_id, r.method AS method, r.question AS question, old.hop AS hop, rev.kind AS kind,
       coalesce(f_old.evidence, f_old.text, old.answer) AS rejected_choice, b.reason AS reason,
       coalesce(f_new.evidence, f_new.text, new.answer) AS revised_choice, coalesce(new.generated, false) AS revised_generated,
       r.answer AS final_answer
ORDER BY r.started_at DESC, hop
