// ReAgent: a run's messages between agents in time order (assert, inform, reject,
// challenge), with the assertion each is about, for `kgtool trace show` and the trace page.
// params: $run_id
// returns: id, t, type, sender, receiver, content, assertion_id
MATCH (:Run {id: $run_id})-[:HAS_MESSAGE]->(m:Message)
OPTIONAL MATCH (m)-[:ABOUT]->(a:Assertion)
RETURN m.id AS id, m.t AS t, m.type AS type, m.sender AS sender, m.receiver AS receiver, m.content AS content,
       a.id AS assertion_id
ORDER BY t, id
