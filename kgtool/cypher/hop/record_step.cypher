// Record one hop of a run: the Step, its scored candidates with p (C2RAG Eq. 7)
// and N_eff (Eq. 8) computed here, the resolved/unresolved decision at gamma,
// and the chosen fact (or a generated answer when no candidate survived).
//   p_c   = (z_c - min_k z_k + eps) / sum_j (z_j - min_k z_k + eps)
//   N_eff = 1 / sum_c p_c^2          resolved iff N_eff <= gamma
// params: $run_id, $step ({id, hop, attempt, query, entity_id, entity, gamma}), $prev_step_id,
//         $candidates (list of {fact_id, rank, score, bm25, relation_sim, selector, passes}), $eps,
//         $chosen_fact_id, $answer_id, $answer, $generated
// returns: step_id, neff, state, p
MATCH (run:Run {id: $run_id})
CREATE (s:Step {id: $step.id, hop: $step.hop, attempt: $step.attempt, query: $step.query,
                entity_id: $step.entity_id, entity: $step.entity, gamma: $step.gamma,
                answer_id: $answer_id, answer: $answer, generated: $generated, created_at: datetime()})
CREATE (run)-[:HAS_STEP]->(s)
WITH s
CALL (s) {
  MATCH (prev:Step {id: $prev_step_id})
  CREATE (prev)-[:NEXT]->(s)
}
WITH s, $candidates AS cs
WITH s, cs, reduce(m = null, c IN cs | CASE WHEN m IS NULL OR c.score < m THEN c.score ELSE m END) AS zmin
WITH s, cs, zmin, reduce(total = 0.0, c IN cs | total + (c.score - zmin + $eps)) AS total
WITH s, [c IN cs | c {.*, p: (c.score - zmin + $eps) / total}] AS scored
WITH s, scored,
     CASE WHEN size(scored) = 0 THEN null ELSE 1.0 / reduce(q = 0.0, c IN scored | q + c.p * c.p) END AS neff
SET s.neff = neff,
    s.state = CASE WHEN neff IS NOT NULL AND neff <= s.gamma THEN 'resolved' ELSE 'unresolved' END
WITH s, scored, neff
CALL (s, scored) {
  UNWIND scored AS c
  MATCH (f:Fact {id: c.fact_id})
  CREATE (s)-[r:CANDIDATE]->(f)
  SET r.rank = c.rank, r.score = c.score, r.p = c.p, r.bm25 = c.bm25, r.relation_sim = c.relation_sim,
      r.selector = c.selector, r.passes = c.passes, r.discarded = false
}
CALL (s) {
  MATCH (f:Fact {id: $chosen_fact_id})
  CREATE (s)-[:CHOSE]->(f)
}
RETURN s.id AS step_id, neff, s.state AS state, [c IN scored | c.p] AS p
