// ReAgent's text side: the full-text passage hits of several entities' names in one read
// (the same pool as passages/search.cypher, per name), so a challenged plan that looks at a
// level of entities spends one round trip on their passages instead of one per entity.
// Each name's hits are its best $limit by Lucene score, then kept if in the answer's scope:
// a passage that describes edits counts only if one of those edits is in scope; document
// passages always count.
// params: $queries (list of {entity_id, query}: query a Lucene query of the name's words, no
//         operators), $limit, $cases, $batches
// returns: entity_id, hits (list of {passage_id, title, text, fulltext}, best score first)
UNWIND $queries AS q
CALL (q) {
  CALL db.index.fulltext.queryNodes('passage_text', q.query, {limit: $limit}) YIELD node, score
  WITH node AS p, score
  WHERE ($cases IS NULL AND $batches IS NULL)
     OR NOT EXISTS { (p)-[:SUPPORTS]->(:Fact)<-[:ASSERTS]-(:Edit) }
     OR EXISTS {
          MATCH (p)-[:SUPPORTS]->(:Fact)<-[:ASSERTS]-(ed:Edit)
          WHERE ($cases IS NULL OR ed.case_id IN $cases) AND ($batches IS NULL OR ed.batch IN $batches)
        }
  RETURN collect({passage_id: p.id, title: p.title, text: p.text, fulltext: score}) AS hits
}
RETURN q.entity_id AS entity_id, hits
