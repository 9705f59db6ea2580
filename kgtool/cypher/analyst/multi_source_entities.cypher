// Entities that several sources speak about: the fact files that state their facts, the edit
// files whose edits assert or replace them, the document files whose passages mention them.
// Such an entity is where sources meet (and where a merge made them meet: merged_from).
// params: none (edit the LIMIT to see more)
// returns: id, name, sources (list of file names), merged_from (names the entity absorbed)
MATCH (e:Entity)
WITH e,
     COLLECT {
       MATCH (e)-[:SUBJECT_OF|OBJECT]-(f:Fact)<-[:STATES]-(s:Source) RETURN s.name AS source
       UNION
       MATCH (e)-[:SUBJECT_OF|OBJECT]-(:Fact)<-[:ASSERTS|SUPERSEDES]-(ed:Edit)
       MATCH (s:Source {id: ed.file}) RETURN s.name AS source
       UNION
       MATCH (p:Passage)-[:MENTIONS]->(e) WHERE p.source IS NOT NULL RETURN p.source AS source
     } AS sources
WHERE size(sources) > 1
RETURN e.id AS id, e.name AS name, sources,
       COLLECT { MATCH (m:EntityMerge)-[:INTO]->(e) RETURN m.absorbed_name } AS merged_from
ORDER BY size(sources) DESC, name
LIMIT 200
