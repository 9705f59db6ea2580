// Passage candidates nearest to a query embedding, from the passage_embedding vector
// index, in the answer's scope (the same rule as passages/search: a passage that describes
// edits counts only if one of those edits is in scope; document passages always count).
// The index is asked for $limit * 2 neighbours because scoping may drop some.
// params: $embedding, $limit, $cases, $batches
// returns: passage_id, title, text, dense (the index's cosine score, 0..1)
CALL db.index.vector.queryNodes('passage_embedding', $limit * 2, $embedding) YIELD node, score
WITH node AS p, score
WHERE ($cases IS NULL AND $batches IS NULL)
   OR NOT EXISTS { (p)-[:SUPPORTS]->(:Fact)<-[:ASSERTS]-(:Edit) }
   OR EXISTS {
        MATCH (p)-[:SUPPORTS]->(:Fact)<-[:ASSERTS]-(ed:Edit)
        WHERE ($cases IS NULL OR ed.case_id IN $cases) AND ($batches IS NULL OR ed.batch IN $batches)
      }
RETURN p.id AS passage_id, p.title AS title, p.text AS text, score AS dense
ORDER BY dense DESC
LIMIT $limit
