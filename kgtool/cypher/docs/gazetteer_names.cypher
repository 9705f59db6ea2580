// The names in the graph that document passages are linked against: entities that edits
// or fact files state facts about. Entities known only from document text (mentions,
// titles) are left out, so what a file's passages link to does not depend on which
// document files were ingested before: re-ingesting a file changes nothing. (A file's
// own titles are added by the ingestion itself.)
// params: none
// returns: id, name, aliases
MATCH (e:Entity)
WHERE EXISTS {
        MATCH (e)-[:SUBJECT_OF|OBJECT]-(f:Fact)
        WHERE NOT EXISTS { MATCH (p:Passage)-[:SUPPORTS]->(f) WHERE p.document_id IS NOT NULL }
      }
RETURN e.id AS id, e.name AS name, coalesce(e.aliases, []) AS aliases
