// C2RAG reads a checked constraint back: the step's sufficiency decision (N_eff and
// state, computed by hop/record_step) and its stored candidates with their p, best
// first. A Fact candidate brings both of its ends, a Passage its title and text; the
// loop derives the induced entity set E_i(v) from these rows.
// params: $step_id
// returns: state, neff, gamma, candidates (list of {id, kind, rank, score, p, head_id, head, relation, tail_id,
//          tail, evidence})
MATCH (s:Step {id: $step_id})
OPTIONAL MATCH (s)-[c:CANDIDATE]->(n)
OPTIONAL MATCH (h:Entity)-[:SUBJECT_OF]->(n)-[:OBJECT]->(t:Entity)
WITH s, c, n, h, t ORDER BY c.rank
RETURN s.state AS state, s.neff AS neff, s.gamma AS gamma,
       [x IN collect(CASE WHEN n IS NULL THEN null ELSE {
          id: n.id, kind: CASE WHEN n:Passage THEN 'passage' ELSE 'fact' END, rank: c.rank, score: c.score, p: c.p,
          head_id: h.id, head: h.name, relation: coalesce(n.relation, n.title), tail_id: t.id, tail: t.name,
          evidence: coalesce(n.evidence, n.text)} END) WHERE x IS NOT NULL] AS candidates
