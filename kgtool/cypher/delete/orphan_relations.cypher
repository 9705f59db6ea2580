// Delete the given relations that no fact and no edit uses any more.
// params: $relation_keys
// returns: relation_key
UNWIND $relation_keys AS key
MATCH (r:Relation {key: key})
WHERE NOT EXISTS { MATCH (f:Fact) WHERE f.relation_key = key }
  AND NOT EXISTS { MATCH (ed:Edit) WHERE ed.relation_key = key }
DETACH DELETE r
RETURN key AS relation_key
