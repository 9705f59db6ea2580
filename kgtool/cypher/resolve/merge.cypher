// Merge one entity into another, keeping a record that explains and undoes it.
// The absorbed entity's facts (as head and tail), passage mentions, documents about it and
// the edits naming it move to the survivor (facts keep their ids; head_id / tail_id and the
// edits' subject_id / object_id / slot follow), its names become the survivor's aliases, and
// it stays as a tombstone: label MergedEntity instead of Entity, (a)-[:SAME_AS]->(s). The
// record (:EntityMerge)-[:ABSORBED]->(a), -[:INTO]->(s) lists what moved, so
// resolve/undo can move exactly that back. One row per merge, in one statement (a pass's merges
// never absorb one another's survivors: each absorbed entity goes straight to its final survivor).
// params: $rows (list of {merge_id, survivor_id, absorbed_id, resolver, score, reason}), $pass_id (the
//         resolver pass: `kgtool resolve list --ingest PASS`), $source (the file whose ingest ran the pass,
//         or null)
// returns: merge_id, survivor_id, absorbed_id, facts_moved, slots (the edit slots before and after), one
//          row per merge made (a row whose entities are gone returns nothing)
UNWIND $rows AS row
MATCH (s:Entity {id: row.survivor_id})
MATCH (a:Entity {id: row.absorbed_id})
WITH s, a, row,
     COLLECT { MATCH (a)-[:SUBJECT_OF]->(f:Fact) RETURN f.id } AS head_facts,
     COLLECT { MATCH (f:Fact)-[:OBJECT]->(a) RETURN f.id } AS tail_facts,
     COLLECT { MATCH (p:Passage)-[:MENTIONS]->(a) RETURN p.id } AS mentions,
     COLLECT { MATCH (p:Passage)-[:MENTIONS]->(a) WHERE EXISTS { (p)-[:MENTIONS]->(s) } RETURN p.id } AS shared_mentions,
     COLLECT { MATCH (d:Document)-[:ABOUT]->(a) RETURN d.id } AS about,
     COLLECT { MATCH (d:Document)-[:ABOUT]->(a) WHERE EXISTS { (d)-[:ABOUT]->(s) } RETURN d.id } AS shared_about,
     COLLECT { MATCH (ed:Edit {subject_id: a.id}) RETURN ed } AS subject_edits,
     COLLECT { MATCH (ed:Edit {object_id: a.id}) RETURN ed } AS object_edits,
     reduce(acc = [], x IN [a.name] + coalesce(a.aliases, []) |
            CASE WHEN x IS NULL OR x = s.name OR x IN coalesce(s.aliases, []) OR x IN acc THEN acc ELSE acc + x END)
       AS added_aliases
CREATE (m:EntityMerge {
  id: row.merge_id, resolver: row.resolver, score: row.score, reason: row.reason, created_at: datetime(),
  pass_id: $pass_id, source: $source,
  survivor_id: s.id, survivor_name: s.name, absorbed_id: a.id, absorbed_name: a.name,
  absorbed_aliases: coalesce(a.aliases, []), added_aliases: added_aliases,
  head_facts: head_facts, tail_facts: tail_facts, mentions: mentions, shared_mentions: shared_mentions,
  about: about, shared_about: shared_about,
  subject_edits: [ed IN subject_edits | ed.id], object_edits: [ed IN object_edits | ed.id],
  subject_slots: [ed IN subject_edits | ed.slot]
})
WITH m, s, a, subject_edits, object_edits
CALL (s, a) {
  MATCH (a)-[r:SUBJECT_OF]->(f:Fact)
  CREATE (s)-[:SUBJECT_OF]->(f)
  SET f.head_id = s.id
  DELETE r
}
CALL (s, a) {
  MATCH (f:Fact)-[r:OBJECT]->(a)
  CREATE (f)-[:OBJECT]->(s)
  SET f.tail_id = s.id
  DELETE r
}
CALL (s, a) {
  MATCH (p:Passage)-[r:MENTIONS]->(a)
  MERGE (p)-[:MENTIONS]->(s)
  DELETE r
}
CALL (s, a) {
  MATCH (d:Document)-[r:ABOUT]->(a)
  MERGE (d)-[:ABOUT]->(s)
  DELETE r
}
CALL (s, a, subject_edits) {
  UNWIND subject_edits AS ed
  SET ed.subject_id = s.id, ed.slot = s.id + substring(ed.slot, size(a.id))
}
CALL (s, object_edits) {
  UNWIND object_edits AS ed
  SET ed.object_id = s.id
}
SET s.aliases = reduce(acc = [], x IN coalesce(s.aliases, []) + m.added_aliases |
                       CASE WHEN x IN acc THEN acc ELSE acc + x END)
SET s.alias_text = reduce(t = '', x IN s.aliases | CASE t WHEN '' THEN x ELSE t + ' | ' + x END)
REMOVE a:Entity
SET a:MergedEntity, a.merged_into = s.id, a.merge_id = m.id
CREATE (a)-[:SAME_AS {merge_id: m.id, resolver: m.resolver, score: m.score}]->(s)
CREATE (m)-[:ABSORBED]->(a)
CREATE (m)-[:INTO]->(s)
RETURN m.id AS merge_id, s.id AS survivor_id, a.id AS absorbed_id,
       size(m.head_facts) + size(m.tail_facts) AS facts_moved,
       m.subject_slots + [ed IN subject_edits | ed.slot] AS slots
