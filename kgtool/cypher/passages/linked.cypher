// Passages one entity away from seed passages: the passages of the documents about an
// entity that a seed passage mentions (a bridge entity of a multi-hop question), in the
// answer's scope. Seeds themselves are not returned. A passage reached from several
// seeds comes back once, with the best (lowest) seed position.
// params: $seed_ids, $cases, $batches
// returns: passage_id, title, text, seed_id, seed_rank (position of the seed in $seed_ids), via (entity name)
UNWIND range(0, size($seed_ids) - 1) AS i
MATCH (s:Passage {id: $seed_ids[i]})-[:MENTIONS]->(e:Entity)<-[:ABOUT]-(:Document)-[:HAS_PASSAGE]->(p:Passage)
WHERE NOT p.id IN $seed_ids
  AND (($cases IS NULL AND $batches IS NULL)
   OR NOT EXISTS { (p)-[:SUPPORTS]->(:Fact)<-[:ASSERTS]-(:Edit) }
   OR EXISTS {
        MATCH (p)-[:SUPPORTS]->(:Fact)<-[:ASSERTS]-(ed:Edit)
        WHERE ($cases IS NULL OR ed.case_id IN $cases) AND ($batches IS NULL OR ed.batch IN $batches)
      })
WITH p, i, s, e
ORDER BY i, p.position
WITH p, head(collect([i, s.id, e.name])) AS best
RETURN p.id AS passage_id, p.title AS title, p.text AS text, best[1] AS seed_id, best[0] AS seed_rank,
       best[2] AS via
ORDER BY seed_rank, passage_id
