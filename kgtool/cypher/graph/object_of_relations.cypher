// Whether some fact of the given relations (not retracted) has the entity as its object: the entity
// is of the kind those relations name (kgtool.reason.answer_kind).
// params: $entity_id, $keys
// returns: found
MATCH (e:Entity {id: $entity_id})
RETURN EXISTS {
  MATCH (f:Fact)-[:OBJECT]->(e)
  WHERE f.relation_key IN $keys AND coalesce(f.status, 'active') <> 'retracted'
} AS found
