// Replay who said what in ReAgent runs: every message between agents (assert, inform,
// reject, challenge) in time order, with the assertion it is about, if any.
// params: none (edit the LIMIT to see more)
// returns: run_id, question, t, type, sender, receiver, content, about, about_status
MATCH (r:Run)-[:HAS_MESSAGE]->(m:Message)
OPTIONAL MATCH (m)-[:ABOUT]->(a:Assertion)
RETURN r.id AS run_id, r.question AS question, m.t AS t, m.type AS type, m.sender AS sender,
       m.receiver AS receiver, m.content AS content, a.kind + ' ' + coalesce(a.value, '') AS about,
       a.status AS about_status
ORDER BY r.started_at DESC, t
LIMIT 500
