// The suggestions still open: both entities still entities, no rejection of the pair, best first.
// params: $ids (suggestion ids, or null for all), $limit
// returns: id, a_id, a_name, b_id, b_name, resolver, score, reason, pass_id, at
MATCH (a:Entity)-[r:MAYBE_SAME_AS]->(b:Entity)
WHERE r.suggested AND ($ids IS NULL OR r.id IN $ids)
  AND NOT EXISTS { MATCH (x:MergeRejection) WHERE x.a_id IN [a.id, b.id] AND x.b_id IN [a.id, b.id] }
RETURN r.id AS id, a.id AS a_id, a.name AS a_name, b.id AS b_id, b.name AS b_name, r.resolver AS resolver,
       r.score AS score, r.reason AS reason, r.pass_id AS pass_id, toString(r.at) AS at
ORDER BY r.score DESC, r.id
LIMIT $limit
