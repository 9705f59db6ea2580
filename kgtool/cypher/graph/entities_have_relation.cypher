// Whether any of the entities takes part in a fact of the relation, as its head or its tail. The status
// rule says "the graph has no <relation> of <entity>" only when none does: a phrase read the wrong way
// round ("the country that has the province X" against `has province`) is a doubt about the reading,
// not a lack of the graph. With $as_subject set, only facts with the entities on that side count (the side
// the question names the relation from: "X's father" asks for a fact with X as its subject).
// params: $ids (entity ids), $relation (a relation's label or key), $as_subject (true, false or null: either)
// returns: found
MATCH (e:Entity)-[r:SUBJECT_OF|OBJECT]-(f:Fact)
WHERE e.id IN $ids AND (f.relation = $relation OR f.relation_key = $relation)
  AND ($as_subject IS NULL OR (type(r) = 'SUBJECT_OF') = $as_subject)
  AND coalesce(f.status, '') <> 'retracted'
RETURN count(f) > 0 AS found
