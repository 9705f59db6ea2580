// How the mentions of each document collection link: to structured entities (ones an edit or a
// fact file states facts about) or to entities only text knows (created from the mention, typed
// by the extractor's reading of it), and how many facts read from text name such a new entity,
// so text about new things joins the graph. `kgtool resolve` merges text-made entities into
// structured ones (exact, fuzzy, embedding); compare this before and after.
// params: none
// returns: source, passages, mentions, structured_mentions, text_only_mentions, text_only_entities,
//          text_facts, text_facts_on_new_entities
MATCH (p:Passage)
WHERE p.source IS NOT NULL
WITH p.source AS source, collect(p) AS passages
CALL (passages) {
  UNWIND passages AS p
  MATCH (p)-[:MENTIONS]->(e:Entity)
  WITH e, count(*) AS n,
       EXISTS { MATCH (e)-[:SUBJECT_OF|OBJECT]-(f:Fact)
                WHERE EXISTS { (:Source)-[:STATES]->(f) } OR EXISTS { (:Edit)-[:ASSERTS|SUPERSEDES]->(f) } }
         AS structured
  RETURN sum(n) AS mentions, sum(CASE WHEN structured THEN n ELSE 0 END) AS structured_mentions,
         sum(CASE WHEN structured THEN 0 ELSE n END) AS text_only_mentions,
         count(CASE WHEN structured THEN null ELSE e END) AS text_only_entities
}
CALL (passages) {
  UNWIND passages AS p
  MATCH (p)-[:SUPPORTS]->(f:Fact)
  WITH DISTINCT f
  RETURN count(f) AS text_facts,
         count(CASE WHEN EXISTS {
           MATCH (e:Entity)-[:SUBJECT_OF|OBJECT]-(f)
           WHERE NOT EXISTS { MATCH (e)-[:SUBJECT_OF|OBJECT]-(g:Fact)
                              WHERE EXISTS { (:Source)-[:STATES]->(g) } OR EXISTS { (:Edit)-[:ASSERTS|SUPERSEDES]->(g) } }
         } THEN f END) AS text_facts_on_new_entities
}
RETURN source, size(passages) AS passages, mentions, structured_mentions, text_only_mentions, text_only_entities,
       text_facts, text_facts_on_new_entities
ORDER BY source
