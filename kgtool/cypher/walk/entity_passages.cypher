// Passages reached from entities, for the graph walk: the passages of a document about the
// entity first, then passages that mention it, at most $per_entity per entity, in the answer's
// scope (a passage that describes edits counts only if one of them is in scope, as in
// passages/search). The per-entity LIMIT keeps the read's cost bounded by $per_entity, not
// by how many passages a hub entity has in the whole corpus.
// params: $entity_ids, $per_entity, $cases, $batches
// returns: entity_id, passage_id
UNWIND $entity_ids AS eid
MATCH (e:Entity {id: eid})
CALL (e) {
  CALL (e) {
    MATCH (e)<-[:ABOUT]-(:Document)-[:HAS_PASSAGE]->(p:Passage)
    RETURN p, 0 AS tier
    UNION
    MATCH (e)<-[:MENTIONS]-(p:Passage)
    RETURN p, 1 AS tier
  }
  WITH p, tier
  WHERE ($cases IS NULL AND $batches IS NULL)
     OR NOT EXISTS { (p)-[:SUPPORTS]->(:Fact)<-[:ASSERTS]-(:Edit) }
     OR EXISTS {
          MATCH (p)-[:SUPPORTS]->(:Fact)<-[:ASSERTS]-(ed:Edit)
          WHERE ($cases IS NULL OR ed.case_id IN $cases) AND ($batches IS NULL OR ed.batch IN $batches)
        }
  RETURN p, tier
  LIMIT $per_entity
}
RETURN e.id AS entity_id, p.id AS passage_id, tier
ORDER BY entity_id, tier, passage_id
