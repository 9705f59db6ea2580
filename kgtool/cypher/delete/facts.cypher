// Facts left without support once their sources are gone: no edit asserts or supersedes
// them, no Source states them, no live passage supports them. An edit that supersedes a
// fact only because entity resolution made its slot the file's (SUPERSEDES {by: 'resolve'},
// cypher/resolve/source_conflicts) gives it no support: the file was its only source. One that a stored run used
// (a Step's CANDIDATE or CHOSE) stays so the run reads as it was, with status 'retracted'
// (answering never sees it; re-ingesting a source that states it brings it back);
// every other one is deleted. Facts that still have support are left alone.
// params: $fact_ids, $reason
// returns: fact_id, action ('deleted' or 'retracted'), head, relation, tail
UNWIND $fact_ids AS fid
MATCH (f:Fact {id: fid})
WHERE NOT EXISTS { (:Edit)-[:ASSERTS]->(f) }
  AND NOT EXISTS { MATCH (:Edit)-[s:SUPERSEDES]->(f) WHERE s.by IS NULL }
  AND NOT EXISTS { (:Source)-[:STATES]->(f) }
  AND NOT EXISTS { MATCH (p:Passage)-[:SUPPORTS]->(f) WHERE coalesce(p.status, '') <> 'retracted' }
  AND f.perturbation IS NULL
WITH f, EXISTS { (:Step)-[:CANDIDATE|CHOSE]->(f) } AS used,
     head(COLLECT { MATCH (h:Entity)-[:SUBJECT_OF]->(f) RETURN h.name }) AS head,
     head(COLLECT { MATCH (f)-[:OBJECT]->(t:Entity) RETURN t.name }) AS tail
WITH f, used, head, tail, f.id AS fact_id, f.relation AS relation
CALL (f, used) {
  WITH f WHERE used
  SET f.status = 'retracted', f.retracted_by = $reason, f.retracted_at = datetime()
}
CALL (f, used) {
  WITH f WHERE NOT used
  DETACH DELETE f
}
RETURN fact_id, CASE WHEN used THEN 'retracted' ELSE 'deleted' END AS action, head, relation, tail
