// Passage candidates for a query from the passage_text full-text index, in the
// answer's scope: a passage that describes edits counts only if one of those
// edits is in scope; document passages always count.
// $query is a Lucene query built from the question's words (no operators).
// params: $query, $limit, $cases, $batches
// returns: passage_id, title, text, fulltext (Lucene's score)
CALL db.index.fulltext.queryNodes('passage_text', $query, {limit: $limit}) YIELD node, score
WITH node AS p, score
WHERE ($cases IS NULL AND $batches IS NULL)
   OR NOT EXISTS { (p)-[:SUPPORTS]->(:Fact)<-[:ASSERTS]-(:Edit) }
   OR EXISTS {
        MATCH (p)-[:SUPPORTS]->(:Fact)<-[:ASSERTS]-(ed:Edit)
        WHERE ($cases IS NULL OR ed.case_id IN $cases) AND ($batches IS NULL OR ed.batch IN $batches)
      }
RETURN p.id AS passage_id, p.title AS title, p.text AS text, score AS fulltext
ORDER BY fulltext DESC
