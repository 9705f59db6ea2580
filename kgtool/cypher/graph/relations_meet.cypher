// Whether two relations belong to one vocabulary: a fact file states facts of both, or they meet on an
// entity (the hop's subject, or a subject of one of the first $limit facts of the hop's relation, is a side
// of a fact of $other). The reading check (kgtool.reason.explains) counts a relation the question names
// better than the chain's hop only then: in a store holding several sources, a user's graph's "country"
// (of its cities) says nothing about the people an edit corpus gives a "country of citizenship", while
// "father" beside "mother" in one file does.
// params: $subject_id, $taken, $other, $limit
// returns: found
OPTIONAL MATCH (f:Fact)
WHERE f.relation_key = $taken
WITH f LIMIT $limit
OPTIONAL MATCH (s:Entity)-[:SUBJECT_OF]->(f)
WITH collect(DISTINCT s) AS subjects
OPTIONAL MATCH (own:Entity {id: $subject_id})
WITH subjects + CASE WHEN own IS NULL THEN [] ELSE [own] END AS sides
RETURN any(p IN sides WHERE EXISTS {
  MATCH (p)-[:SUBJECT_OF|OBJECT]-(g:Fact)
  WHERE g.relation_key = $other AND coalesce(g.status, 'active') <> 'retracted'
}) OR EXISTS {
  MATCH (src:Source)-[:STATES]->(g:Fact)
  WHERE g.relation_key = $other
  MATCH (src)-[:STATES]->(t:Fact)
  WHERE t.relation_key = $taken
} AS found
