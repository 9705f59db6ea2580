// Runs that backtracked, and where: the rejected step, the critic's reason, and
// what the revised step chose instead.
// params: none
// returns: run_id, question, hop, rejected_choice, reason, revised_choice, revised_generated, final_answer
MATCH (r:Run)-[:HAS_STEP]->(old:Step)-[:REVISED_AS]->(new:Step)
OPTIONAL MATCH (from:Step)-[b:BACKTRACK]->(new)
OPTIONAL MATCH (old)-[:CHOSE]->(f_old:Fact)
OPTIONAL MATCH (new)-[:CHOSE]->(f_new:Fact)
RETURN r.id AS run_id, r.question AS question, old.hop AS hop,
       coalesce(f_old.evidence, old.answer) AS rejected_choice, b.reason AS reason,
       coalesce(f_new.evidence, new.answer) AS revised_choice, coalesce(new.generated, false) AS revised_generated,
       r.answer AS final_answer
ORDER BY r.started_at DESC, hop
