// Whether a relation belongs to the part of the graph a hop stands in: the hop's subject, or a peer of it
// (another subject of the hop's relation to the same object: another citizen of the same country), is a
// side of some fact of $other. The reading check (kgtool.reason.explains) counts a relation the question
// names better than the chain's hop only then: in a store holding several sources, one source's
// vocabulary ("country" of a user's graph) says nothing about the entities of another.
// params: $subject_id, $object_id, $taken, $other, $limit
// returns: found
MATCH (s:Entity {id: $subject_id})
OPTIONAL MATCH (o:Entity {id: $object_id})
OPTIONAL CALL (o) {
  MATCH (o)<-[:OBJECT]-(f:Fact)<-[:SUBJECT_OF]-(peer:Entity)
  WHERE f.relation_key = $taken
  RETURN DISTINCT peer
  LIMIT $limit
}
WITH s, collect(peer) AS peers
RETURN any(p IN [s] + peers WHERE EXISTS {
  MATCH (p)-[:SUBJECT_OF|OBJECT]-(g:Fact)
  WHERE g.relation_key = $other AND coalesce(g.status, 'active') <> 'retracted'
}) AS found
