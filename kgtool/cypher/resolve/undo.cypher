// Undo one merge: move back what its record says moved (facts still there, mentions,
// documents, edits that still name the survivor), take the aliases it added off the
// survivor, make the tombstone an Entity again, and delete the record and its SAME_AS.
// resolve/undo_check must have passed (the survivor is still an Entity).
// params: $merge_id
// returns: merge_id, survivor_id, absorbed_id, facts_moved, slots (edit slots before and after)
MATCH (m:EntityMerge {id: $merge_id})-[:ABSORBED]->(a:MergedEntity)
MATCH (m)-[:INTO]->(s:Entity)
CALL (m, s, a) {
  UNWIND m.head_facts AS fid
  MATCH (s)-[r:SUBJECT_OF]->(f:Fact {id: fid})
  CREATE (a)-[:SUBJECT_OF]->(f)
  SET f.head_id = a.id
  DELETE r
}
CALL (m, s, a) {
  UNWIND m.tail_facts AS fid
  MATCH (f:Fact {id: fid})-[r:OBJECT]->(s)
  CREATE (f)-[:OBJECT]->(a)
  SET f.tail_id = a.id
  DELETE r
}
CALL (m, s, a) {
  UNWIND m.mentions AS pid
  MATCH (p:Passage {id: pid})
  MERGE (p)-[:MENTIONS]->(a)
  WITH p, pid, m, s WHERE NOT pid IN m.shared_mentions
  MATCH (p)-[r:MENTIONS]->(s)
  DELETE r
}
CALL (m, s, a) {
  UNWIND m.about AS did
  MATCH (d:Document {id: did})
  MERGE (d)-[:ABOUT]->(a)
  WITH d, did, m, s WHERE NOT did IN m.shared_about
  MATCH (d)-[r:ABOUT]->(s)
  DELETE r
}
WITH m, s, a, COLLECT { UNWIND m.subject_edits AS eid MATCH (ed:Edit {id: eid}) RETURN ed.slot } AS merged_slots
CALL (m, s, a) {
  UNWIND range(0, size(m.subject_edits) - 1) AS i
  MATCH (ed:Edit {id: m.subject_edits[i]})
  WHERE ed.subject_id = s.id
  SET ed.subject_id = a.id, ed.slot = m.subject_slots[i]
}
CALL (m, s, a) {
  UNWIND m.object_edits AS eid
  MATCH (ed:Edit {id: eid})
  WHERE ed.object_id = s.id
  SET ed.object_id = a.id
}
SET s.aliases = [x IN coalesce(s.aliases, []) WHERE NOT x IN m.added_aliases]
SET s.alias_text = reduce(t = '', x IN s.aliases | CASE t WHEN '' THEN x ELSE t + ' | ' + x END)
REMOVE a:MergedEntity, a.merged_into, a.merge_id
SET a:Entity
WITH m, s, a, merged_slots, size(m.head_facts) + size(m.tail_facts) AS facts_moved,
     m.subject_slots AS slots, m.id AS merge_id
CALL (a) {
  MATCH (a)-[r:SAME_AS]->()
  DELETE r
}
DETACH DELETE m
RETURN merge_id, s.id AS survivor_id, a.id AS absorbed_id, facts_moved, slots + merged_slots AS slots
