// SAFE's train-time filter (kgtool verify-benchmark): for each question, the
// shortest continuous chain of facts in force (status active, distractors
// excluded, either direction) from one of its linked question entities to one of
// its linked gold-answer entities. Chains longer than 6 facts are not searched;
// $max_hops (at most 6) is the hop limit the caller asks for.
// params: $items (list of {key, sources: [entity ids], targets: [entity ids]}), $max_hops
// returns: key, hops (null when no chain within $max_hops), path (names along the chain)
UNWIND $items AS item
OPTIONAL CALL (item) {
  MATCH (a:Entity) WHERE a.id IN item.sources
  MATCH (b:Entity) WHERE b.id IN item.targets AND b <> a
  MATCH p = SHORTEST 1 (a)((x:Entity)-[:SUBJECT_OF|OBJECT]-(f:Fact)-[:SUBJECT_OF|OBJECT]-(y:Entity)
    WHERE x <> y AND f.status = 'active' AND coalesce(f.source, '') <> 'distractor'){1,6}(b)
  WITH p, length(p) / 2 AS hops
  WHERE hops <= $max_hops
  RETURN hops, [n IN nodes(p) | coalesce(n.name, n.relation)] AS path
  ORDER BY hops
  LIMIT 1
}
RETURN item.key AS key, hops, path
