// Remove passages. One that a stored run used (a Step's CANDIDATE or CHOSE) stays for
// that run, marked status 'retracted' and cut from its document, the facts it supported
// and the entities it mentioned; every other one is deleted with its relationships.
// params: $passage_ids, $reason
// returns: passage_id, action ('deleted' or 'retracted')
UNWIND $passage_ids AS pid
MATCH (p:Passage {id: pid})
WITH pid, p, EXISTS { (:Step)-[:CANDIDATE|CHOSE]->(p) } AS used
CALL (p, used) {
  WITH p WHERE used
  OPTIONAL MATCH (p)-[r:SUPPORTS|MENTIONS]->()
  DELETE r
  WITH DISTINCT p
  OPTIONAL MATCH (:Document)-[h:HAS_PASSAGE]->(p)
  DELETE h
  WITH DISTINCT p
  SET p.status = 'retracted', p.retracted_by = $reason, p.retracted_at = datetime()
}
CALL (p, used) {
  WITH p WHERE NOT used
  DETACH DELETE p
}
RETURN pid AS passage_id, CASE WHEN used THEN 'retracted' ELSE 'deleted' END AS action
