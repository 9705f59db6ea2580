// Whether the entity is the subject and whether it is the object of some fact of the given relations
// (not retracted): relations said with "in" ("located in", "based in") put a thing in a place, so
// their subjects are things and their objects places (kgtool.reason.answer_kind).
// params: $entity_id, $keys
// returns: subject, object
MATCH (e:Entity {id: $entity_id})
RETURN EXISTS {
  MATCH (e)-[:SUBJECT_OF]->(f:Fact)
  WHERE f.relation_key IN $keys AND coalesce(f.status, 'active') <> 'retracted'
} AS subject, EXISTS {
  MATCH (f:Fact)-[:OBJECT]->(e)
  WHERE f.relation_key IN $keys AND coalesce(f.status, 'active') <> 'retracted'
} AS object
