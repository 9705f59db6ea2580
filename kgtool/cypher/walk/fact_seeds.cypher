// The facts nearest to a question's embedding (the fact_embedding vector index), with their
// two entities and each entity's passage degree: HippoRAG 2's query-to-triple step, whose
// entities seed the graph walk. Retracted facts are left out, and so are facts that only edits
// out of the answer's scope assert (a fact no edit asserts, read from a document, always
// counts). The index is asked for $limit * 4 neighbours because these filters may drop some.
// params: $embedding, $limit, $cases, $batches
// returns: fact_id, score (cosine, 0..1), head_id, head_degree, tail_id, tail_degree
CALL db.index.vector.queryNodes('fact_embedding', $limit * 4, $embedding) YIELD node, score
WITH node AS f, score
WHERE f.status <> 'retracted'
  AND (($cases IS NULL AND $batches IS NULL)
       OR NOT EXISTS { (f)<-[:ASSERTS]-(:Edit) }
       OR EXISTS {
            MATCH (f)<-[:ASSERTS]-(ed:Edit)
            WHERE ($cases IS NULL OR ed.case_id IN $cases) AND ($batches IS NULL OR ed.batch IN $batches)
          })
MATCH (h:Entity)-[:SUBJECT_OF]->(f)-[:OBJECT]->(t:Entity)
WITH f, score, h, t
ORDER BY score DESC, f.id
LIMIT $limit
RETURN f.id AS fact_id, score, h.id AS head_id,
       COUNT { (h)<-[:MENTIONS]-() } + COUNT { (h)<-[:ABOUT]-(:Document)-[:HAS_PASSAGE]->() } AS head_degree,
       t.id AS tail_id,
       COUNT { (t)<-[:MENTIONS]-() } + COUNT { (t)<-[:ABOUT]-(:Document)-[:HAS_PASSAGE]->() } AS tail_degree
