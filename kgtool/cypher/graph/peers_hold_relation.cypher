// How many entities like the given one hold a relation it lacks: "like it" are the entities on the same
// side of a fact of relation $via as the entity is (others with a `spouse`, others with a `country`). The
// status rule (kgtool.reason.abstain) reads a hop the question does not name, followed by the relation the
// question asks, as a detour around a missing fact when the entity lacks that relation and entities like
// it commonly hold it ("where was X born" answered by the birthplace of X's spouse); when none of them
// does, the unnamed hop is the bridge the relation needs (a person's continent is their country's).
// params: $id (the entity), $via (relation key of the unnamed hop), $via_subject (the entity is that hop's
//         subject), $relation (relation key of the asked hop), $as_subject (the asked side is the subject),
//         $limit (entities like it looked at)
// returns: peers, holding, own
OPTIONAL MATCH (f:Fact)
WHERE f.relation_key = $via AND coalesce(f.status, 'active') <> 'retracted'
OPTIONAL MATCH (p:Entity)-[r:SUBJECT_OF|OBJECT]-(f)
WHERE (type(r) = 'SUBJECT_OF') = $via_subject AND p.id <> $id
WITH DISTINCT p LIMIT $limit
WITH [x IN collect(p) WHERE x IS NOT NULL] AS peers
OPTIONAL MATCH (own:Entity {id: $id})
RETURN size(peers) AS peers,
  size([p IN peers WHERE EXISTS {
    MATCH (p)-[r:SUBJECT_OF|OBJECT]-(g:Fact)
    WHERE g.relation_key = $relation AND (type(r) = 'SUBJECT_OF') = $as_subject
      AND coalesce(g.status, 'active') <> 'retracted'
  }]) AS holding,
  own IS NOT NULL AND EXISTS {
    MATCH (own)-[r:SUBJECT_OF|OBJECT]-(g:Fact)
    WHERE g.relation_key = $relation AND (type(r) = 'SUBJECT_OF') = $as_subject
      AND coalesce(g.status, 'active') <> 'retracted'
  } AS own
