// Record steps of a run (any method): each Step, its scored candidates (Facts or
// Passages) with p (C2RAG Eq. 7) and N_eff (Eq. 8) computed here, the
// resolved/unresolved decision at gamma, and what the step chose.
//   p_c   = (z_c - min_k z_k + eps) / sum_j (z_j - min_k z_k + eps)
//   N_eff = 1 / sum_c p_c^2          resolved iff N_eff <= gamma
// (a candidate's p counted with the others of its `group`, when it has one: see below)
// $steps holds one step or several consecutive ones (CARE writes a critic round's
// hops together, just before the critic reads them back); a step's prev_step_id
// may name a step earlier in the same list. Each candidate's named scores
// (bm25, relation, selector, ...) become properties of its CANDIDATE link.
// $chain_step_ids (null for none) names a chain of steps to read back once the steps are
// written, in hop order, as trace/chain returns it: a loop that records a round's hops
// and then has them judged gets the chain it judges in the same round trip.
// params: $run_id, $eps, $chain_step_ids,
//         $steps (list of {id, kind, hop, attempt, query, entity_id, entity, gamma, prev_step_id,
//                 candidates: list of {id, kind ('fact'|'passage'), rank, score, passes, scores: map,
//                              group (optional: candidates that are one value set)},
//                 chosen_id, chosen_kind, answer_id, answer, generated,
//                 prompt_trims (optional: list of JSON strings, the LLM prompts trimmed to fit the context before it)})
// returns: step_id, neff, state, p (one row per step, in the order given),
//          chain (the same on every row: list of the trace/chain columns, [] when $chain_step_ids is null)
MATCH (run:Run {id: $run_id})
UNWIND range(0, size($steps) - 1) AS i
WITH run, i, $steps[i] AS st
CREATE (s:Step {id: st.id, kind: st.kind, hop: st.hop, attempt: st.attempt, query: st.query,
                entity_id: st.entity_id, entity: st.entity, gamma: st.gamma,
                answer_id: st.answer_id, answer: st.answer, generated: st.generated,
                prompt_trims: st.prompt_trims, created_at: datetime()})
CREATE (run)-[:HAS_STEP]->(s)
WITH i, st, s, st.candidates AS cs
WITH i, st, s, cs, reduce(m = null, c IN cs | CASE WHEN m IS NULL OR c.score < m THEN c.score ELSE m END) AS zmin
WITH i, st, s, cs, zmin, reduce(total = 0.0, c IN cs | total + (c.score - zmin + $eps)) AS total
WITH i, st, s, [c IN cs | c {.*, p: (c.score - zmin + $eps) / total}] AS scored
// candidates that share a `group` (C2RAG: the stated values of one many-valued relation of the
// hop's subject, all of which hold) are one candidate of the distribution: their p is summed
// before squaring. A candidate without a group is its own, as in Eq. 8.
WITH i, st, s, scored,
     reduce(ks = [], c IN scored | CASE WHEN c.group IS NULL OR c.group IN ks THEN ks ELSE ks + c.group END) AS keys
WITH i, st, s, scored,
     [c IN scored WHERE c.group IS NULL | c.p] +
     [k IN keys | reduce(t = 0.0, c IN scored | t + CASE WHEN c.group = k THEN c.p ELSE 0.0 END)] AS masses
WITH i, st, s, scored,
     CASE WHEN size(scored) = 0 THEN null ELSE 1.0 / reduce(q = 0.0, m IN masses | q + m * m) END AS neff
SET s.neff = neff,
    // within 0.001 of gamma counts as reached: eps alone lifts a one-candidate pool to
    // N_eff 1.000003, which would otherwise be unresolved at gamma 1.0
    s.state = CASE WHEN neff IS NOT NULL AND neff <= s.gamma + 0.001 THEN 'resolved' ELSE 'unresolved' END
WITH i, st, s, scored, neff
CALL (s, scored) {
  UNWIND scored AS c
  OPTIONAL MATCH (f:Fact {id: c.id}) WHERE c.kind = 'fact'
  OPTIONAL MATCH (p:Passage {id: c.id}) WHERE c.kind = 'passage'
  WITH s, c, coalesce(f, p) AS target WHERE target IS NOT NULL
  CREATE (s)-[r:CANDIDATE]->(target)
  SET r += c.scores
  SET r.rank = c.rank, r.score = c.score, r.p = c.p, r.passes = c.passes, r.discarded = false, r.group = c.group
}
CALL (s, st) {
  OPTIONAL MATCH (f:Fact {id: st.chosen_id}) WHERE st.chosen_kind = 'fact'
  OPTIONAL MATCH (p:Passage {id: st.chosen_id}) WHERE st.chosen_kind = 'passage'
  WITH s, coalesce(f, p) AS target WHERE target IS NOT NULL
  CREATE (s)-[:CHOSE]->(target)
}
// ORDER BY takes in every row before it passes one on, so all the steps of the
// list exist before the NEXT links are made: a NEXT can point within the list
WITH i, st, s, scored, neff
ORDER BY i
CALL (s, st) {
  MATCH (prev:Step {id: st.prev_step_id})
  CREATE (prev)-[:NEXT]->(s)
}
// collect waits for every step of the list, so the chain read below sees them all
WITH collect({step_id: s.id, neff: neff, state: s.state, p: [c IN scored | c.p]}) AS recorded
CALL () {
  UNWIND coalesce($chain_step_ids, []) AS sid
  MATCH (s:Step {id: sid})
  OPTIONAL MATCH (s)-[:CHOSE]->(f:Fact)
  OPTIONAL MATCH (h:Entity)-[:SUBJECT_OF]->(f)-[:OBJECT]->(t:Entity)
  OPTIONAL MATCH (s)-[:CHOSE]->(ps:Passage)
  WITH s, f, h, t, ps ORDER BY s.hop
  RETURN collect({step_id: s.id, hop: s.hop, attempt: s.attempt, query: s.query, entity_id: s.entity_id,
                  entity: s.entity, answer_id: s.answer_id, answer: s.answer,
                  generated: coalesce(s.generated, false), fact_id: f.id, head_id: h.id, head: h.name,
                  relation: f.relation, relation_key: f.relation_key, relation_id: f.relation_id, tail_id: t.id,
                  tail: t.name, evidence: coalesce(f.evidence, ps.text), passage_id: ps.id,
                  stated: f IS NOT NULL AND (f.source IN ['edit', 'base'] OR EXISTS { (:Edit)-[:ASSERTS]->(f) }
                                             OR EXISTS { (:Source)-[:STATES]->(f) })}) AS chain
}
UNWIND recorded AS r
RETURN r.step_id AS step_id, r.neff AS neff, r.state AS state, r.p AS p, chain
