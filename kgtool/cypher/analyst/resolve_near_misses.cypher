// Candidate pairs a resolver pass left apart: under its threshold, refused by a guard (different
// Wikidata ids, a fact between them, disagreeing dates or facts) or ambiguous. Recorded by
// `kgtool resolve --near-misses` as (:Entity)-[:MAYBE_SAME_AS {resolver, score, reason}]->(:Entity);
// `kgtool resolve --dry-run` prints them without writing.
// params: none (edit the LIMIT to see more)
// returns: a_id, a_name, b_id, b_name, resolver, score, reason
MATCH (a:Entity)-[r:MAYBE_SAME_AS]->(b:Entity)
RETURN a.id AS a_id, a.name AS a_name, b.id AS b_id, b.name AS b_name, r.resolver AS resolver,
       r.score AS score, r.reason AS reason
ORDER BY r.score DESC, a_name
LIMIT 200
