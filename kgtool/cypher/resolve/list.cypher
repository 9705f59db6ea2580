// The merges in the graph, newest first: who merged what into what, how sure, and why.
// params: $resolver (a resolver name, or null for all), $pass (a pass id or the file an ingest ran it
//         after, or null for all), $limit
// returns: merge_id, resolver, score, reason, survivor_id, survivor_name, absorbed_id, absorbed_name,
//          facts_moved, created_at, pass_id, source
MATCH (m:EntityMerge)
WHERE ($resolver IS NULL OR m.resolver = $resolver)
  AND ($pass IS NULL OR m.pass_id = $pass OR m.source = $pass)
RETURN m.id AS merge_id, m.resolver AS resolver, m.score AS score, m.reason AS reason,
       m.survivor_id AS survivor_id, m.survivor_name AS survivor_name, m.absorbed_id AS absorbed_id,
       m.absorbed_name AS absorbed_name, size(m.head_facts) + size(m.tail_facts) AS facts_moved,
       toString(m.created_at) AS created_at, m.pass_id AS pass_id, m.source AS source
ORDER BY m.created_at DESC, m.id
LIMIT $limit
