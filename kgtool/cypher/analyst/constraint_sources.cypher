// Where C2RAG's constraints got their bindings, per method and agent family: the
// graph (resolved: N_eff <= gamma), text (recovered from passages), or neither
// (unresolved: a best guess from ambiguous graph candidates; failed: never grounded).
// params: none
// returns: method, agents, state, constraints, share
MATCH (r:Run)-[:HAS_CONSTRAINT]->(k:Constraint)
WITH r.method AS method, r.agents AS agents, k.state AS state, count(*) AS n
WITH method, agents, collect({state: state, n: n}) AS rows, sum(n) AS total
UNWIND rows AS row
RETURN method, agents, row.state AS state, row.n AS constraints, toFloat(row.n) / total AS share
ORDER BY method, agents, constraints DESC
