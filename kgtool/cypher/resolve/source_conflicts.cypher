// After merges, a file's base fact and an edit can speak about the same slot: the
// edit's subject, a relation with the edit's key or label, another object. The edit's
// conflict policy decides: 'keep-all' keeps both in force and links them
// (ed)-[:CONFLICTS_WITH {by: 'resolve'}]->(f), f.conflict = true; 'latest' (and 'fail',
// which can only refuse a file before it is written) lets the edit replace the file's
// fact as it replaces the pre-edit fact it names: (ed)-[:SUPERSEDES {by: 'resolve'}]->(f),
// status 'superseded'. Only edits in force and facts no edit asserts are compared.
// These links are no support: deleting the file still deletes the fact (cypher/delete/facts).
// params: $entity_ids (the survivors of the merges)
// returns: edit_id, fact_id, action ('superseded' or 'flagged'), relation, object
UNWIND $entity_ids AS sid
MATCH (ed:Edit {subject_id: sid})
WHERE coalesce(ed.status, 'active') = 'active'
MATCH (:Entity {id: sid})-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(o:Entity)
WHERE o.id <> ed.object_id
  AND (f.relation_key = ed.relation_key OR toLower(trim(f.relation)) = toLower(trim(ed.relation)))
  AND NOT EXISTS { (:Edit)-[:ASSERTS]->(f) }
  AND NOT EXISTS { (ed)-[:SUPERSEDES|CONFLICTS_WITH]->(f) }
  AND EXISTS { MATCH (src:Source)-[:STATES]->(f) WHERE src.id <> coalesce(ed.file, '') }
CALL (ed, f) {
  WITH ed, f WHERE ed.conflict_policy = 'keep-all'
  MERGE (ed)-[:CONFLICTS_WITH {by: 'resolve'}]->(f)
  SET f.conflict = true
}
CALL (ed, f) {
  WITH ed, f WHERE coalesce(ed.conflict_policy, 'latest') <> 'keep-all'
  MERGE (ed)-[:SUPERSEDES {by: 'resolve'}]->(f)
  SET f.status = 'superseded'
}
RETURN ed.id AS edit_id, f.id AS fact_id,
       CASE ed.conflict_policy WHEN 'keep-all' THEN 'flagged' ELSE 'superseded' END AS action,
       f.relation AS relation, o.name AS object
