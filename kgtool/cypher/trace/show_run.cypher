// Everything about one run of any method, for `kgtool trace show`: the run, and per
// step its candidates (Facts or Passages, with every named score), choice,
// verdicts, revision and backtrack links.
// params: $run_id
// returns: run, steps
MATCH (r:Run {id: $run_id})
OPTIONAL MATCH (r)-[:HAS_STEP]->(s:Step)
WITH r, s ORDER BY s.hop, s.attempt, s.created_at
WITH r, collect(s) AS steps
RETURN r {.*, started_at: toString(r.started_at), finished_at: toString(r.finished_at)} AS run,
  [s IN steps | s {
     .id, .kind, .hop, .attempt, .query, .entity, .entity_id, .state, .neff, .gamma, .answer, .answer_id,
     .generated, .in_chain, .prompt_trims,
     chosen: head([(s)-[:CHOSE]->(n) | n.id]),
     revised_as: head([(s)-[:REVISED_AS]->(n:Step) | n.id]),
     backtrack_to: [(s)-[b:BACKTRACK]->(n:Step) | {to_step: n.id, kind: b.kind, reason: b.reason}],
     candidates: [(s)-[c:CANDIDATE]->(n) | {
        fact_id: n.id, kind: CASE WHEN n:Passage THEN 'passage' ELSE 'fact' END, rank: c.rank, score: c.score,
        p: c.p, passes: c.passes, discarded: c.discarded, scores: properties(c),
        relation: coalesce(n.relation, n.title), evidence: coalesce(n.evidence, n.text),
        head: head([(h:Entity)-[:SUBJECT_OF]->(n) | h.name]), tail: head([(n)-[:OBJECT]->(t:Entity) | t.name])}],
     verdicts: [(v:Verdict)-[:ON]->(s) | v {.valid, .taxonomy, .error_type, .explanation, .guidance, .failed_hop,
                                            .round}]
  }] AS steps
