// Everything about one run, for `kgtool trace show`: the run, and per step its
// candidates, choice, verdicts, revision and backtrack links.
// params: $run_id
// returns: run, steps
MATCH (r:Run {id: $run_id})
OPTIONAL MATCH (r)-[:HAS_STEP]->(s:Step)
WITH r, s ORDER BY s.hop, s.attempt, s.created_at
WITH r, collect(s) AS steps
RETURN r {.*, started_at: toString(r.started_at), finished_at: toString(r.finished_at)} AS run,
  [s IN steps | s {
     .id, .hop, .attempt, .query, .entity, .entity_id, .state, .neff, .gamma, .answer, .answer_id, .generated, .in_chain,
     chosen: head([(s)-[:CHOSE]->(f:Fact) | f.id]),
     revised_as: head([(s)-[:REVISED_AS]->(n:Step) | n.id]),
     backtrack_to: [(s)-[b:BACKTRACK]->(n:Step) | {to_step: n.id, reason: b.reason}],
     candidates: [(s)-[c:CANDIDATE]->(f:Fact) | {
        fact_id: f.id, rank: c.rank, score: c.score, p: c.p, bm25: c.bm25, relation_sim: c.relation_sim,
        selector: c.selector, passes: c.passes, discarded: c.discarded, relation: f.relation, evidence: f.evidence,
        head: head([(h:Entity)-[:SUBJECT_OF]->(f) | h.name]), tail: head([(f)-[:OBJECT]->(t:Entity) | t.name])}],
     verdicts: [(v:Verdict)-[:ON]->(s) | v {.valid, .error_type, .explanation, .failed_hop, .round}]
  }] AS steps
