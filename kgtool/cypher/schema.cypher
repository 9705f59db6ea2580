// The schema: uniqueness constraints, full-text and vector indexes.
// Idempotent (IF NOT EXISTS): `kgtool db init` applies it on every call.
// Several statements, separated by `;` at line ends (the only multi-statement file).
// The full-text indexes are eventually consistent: Lucene updates happen after
// commit, off the ingest path, which took a third of ingest time when they ran
// inside each transaction. entity_names and fact_evidence serve analysts; passage_text
// serves passage retrieval, so ingestion waits for it to catch up before it returns
// (admin/await_fulltext). Facts and entities are
// reached through the id constraints, so no other property indexes are kept on them
// beyond the normalised entity name.
// Literal values (a fact's object that is a number, date, boolean, quantity or URL; kgtool/ingest/literals.py)
// are (:Entity:Literal) nodes of their one fact (id "lit:" + a hash of head, relation and value: never
// shared), with name/text (as written), datatype, typed value, iso and precision (dates), unit; the
// (:Fact) carries the same value, datatype, precision, unit and value_text (ingest/merge_literals).
// (:Ingest {id, kind, source, started_at, finished_at}) records each ingest of a file; one without
// finished_at did not finish (kgtool/ingest/marker.py, health/unfinished_ingests).
// params: $dimension (substituted by kgtool from the embedding_dim setting; schema commands take no parameters)
// returns: nothing
CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (n:Fact) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT edit_id IF NOT EXISTS FOR (n:Edit) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT passage_id IF NOT EXISTS FOR (n:Passage) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT document_id IF NOT EXISTS FOR (n:Document) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT question_id IF NOT EXISTS FOR (n:Question) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT run_id IF NOT EXISTS FOR (n:Run) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT step_id IF NOT EXISTS FOR (n:Step) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT relation_key IF NOT EXISTS FOR (n:Relation) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT verdict_id IF NOT EXISTS FOR (n:Verdict) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT perturbation_id IF NOT EXISTS FOR (n:Perturbation) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT name_key IF NOT EXISTS FOR (n:NameKey) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT link_index_id IF NOT EXISTS FOR (n:LinkIndex) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT ingest_id IF NOT EXISTS FOR (n:Ingest) REQUIRE n.id IS UNIQUE;
CREATE INDEX edit_case IF NOT EXISTS FOR (n:Edit) ON (n.case_id);
CREATE INDEX edit_batch IF NOT EXISTS FOR (n:Edit) ON (n.batch);
CREATE INDEX edit_slot IF NOT EXISTS FOR (n:Edit) ON (n.slot);
CREATE INDEX edit_subject IF NOT EXISTS FOR (n:Edit) ON (n.subject_id);
CREATE INDEX edit_object IF NOT EXISTS FOR (n:Edit) ON (n.object_id);
CREATE CONSTRAINT entity_merge_id IF NOT EXISTS FOR (n:EntityMerge) REQUIRE n.id IS UNIQUE;
CREATE INDEX merged_entity_id IF NOT EXISTS FOR (n:MergedEntity) ON (n.id);
CREATE INDEX entity_norm IF NOT EXISTS FOR (n:Entity) ON (n.norm);
CREATE INDEX run_question IF NOT EXISTS FOR (n:Run) ON (n.question_id);
CREATE INDEX run_status IF NOT EXISTS FOR (n:Run) ON (n.status);
CREATE FULLTEXT INDEX entity_names IF NOT EXISTS FOR (n:Entity) ON EACH [n.name, n.alias_text]
  OPTIONS {indexConfig: {`fulltext.eventually_consistent`: true}};
CREATE FULLTEXT INDEX fact_evidence IF NOT EXISTS FOR (n:Fact) ON EACH [n.evidence]
  OPTIONS {indexConfig: {`fulltext.eventually_consistent`: true}};
CREATE FULLTEXT INDEX passage_text IF NOT EXISTS FOR (n:Passage) ON EACH [n.title, n.text]
  OPTIONS {indexConfig: {`fulltext.eventually_consistent`: true}};
CREATE VECTOR INDEX relation_embedding IF NOT EXISTS FOR (n:Relation) ON (n.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX passage_embedding IF NOT EXISTS FOR (n:Passage) ON (n.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (n:Fact) ON (n.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine'}};
