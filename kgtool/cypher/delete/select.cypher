// What a deletion takes away, read before anything is written: the edits (by id, by
// batch, or stated by a source file), the documents (by id or by source file), the
// Source nodes, their passages (document passages and the edits' description passages),
// every fact one of them touches (ASSERTS, SUPERSEDES, STATES, SUPPORTS), the entities
// and relations those parts used, and the slots of the edits (for the conflict verdicts).
// Each selector is a list; an empty list selects nothing.
// params: $edit_ids, $batches, $source_ids, $document_ids, $edit_passage_prefix
// returns: edits, documents, sources, passage_ids, slots, fact_ids, entity_ids, relation_keys
WITH COLLECT {
       UNWIND $edit_ids AS x MATCH (ed:Edit {id: x}) RETURN ed
       UNION
       UNWIND $batches AS x MATCH (ed:Edit {batch: x}) RETURN ed
       UNION
       UNWIND $source_ids AS x MATCH (ed:Edit {file: x}) RETURN ed
     } AS edits,
     COLLECT {
       UNWIND $document_ids AS x MATCH (d:Document {id: x}) RETURN d
       UNION
       UNWIND $source_ids AS x MATCH (d:Document {source: x}) RETURN d
     } AS documents,
     COLLECT { UNWIND $source_ids AS x MATCH (s:Source {id: x}) RETURN s } AS sources
WITH edits, documents, sources,
     COLLECT {
       UNWIND documents AS d MATCH (d)-[:HAS_PASSAGE]->(p:Passage) RETURN p
       UNION
       UNWIND edits AS ed MATCH (p:Passage {id: $edit_passage_prefix + ed.id}) RETURN p
     } AS passages
WITH edits, documents, sources, passages,
     COLLECT {
       UNWIND edits AS ed MATCH (ed)-[:ASSERTS|SUPERSEDES]->(f:Fact) RETURN f
       UNION
       UNWIND sources AS s MATCH (s)-[:STATES]->(f:Fact) RETURN f
       UNION
       UNWIND passages AS p MATCH (p)-[:SUPPORTS]->(f:Fact) RETURN f
     } AS facts
RETURN [ed IN edits | ed {.id, .batch, .subject, .relation, .object, .old_object, .slot, .file}] AS edits,
       [d IN documents | d {.id, .title, .source}] AS documents,
       [s IN sources | s.id] AS sources,
       [p IN passages | p.id] AS passage_ids,
       [slot IN COLLECT { UNWIND edits AS ed RETURN DISTINCT ed.slot AS slot } WHERE slot IS NOT NULL] AS slots,
       [f IN facts | f.id] AS fact_ids,
       COLLECT {
         UNWIND facts AS f MATCH (e:Entity)-[:SUBJECT_OF|OBJECT]-(f) RETURN e.id AS id
         UNION
         UNWIND passages AS p MATCH (p)-[:MENTIONS]->(e:Entity) RETURN e.id AS id
         UNION
         UNWIND documents AS d MATCH (d)-[:ABOUT]->(e:Entity) RETURN e.id AS id
         UNION
         UNWIND edits AS ed UNWIND [ed.subject_id, ed.object_id] AS x MATCH (e:Entity {id: x}) RETURN e.id AS id
       } AS entity_ids,
       COLLECT {
         UNWIND facts AS f RETURN f.relation_key AS key
         UNION
         UNWIND edits AS ed RETURN ed.relation_key AS key
       } AS relation_keys
