// The entities each passage is tied to, for the graph walk (kgtool.retrieve.walk): those it
// MENTIONS and the entity its document is ABOUT, with each entity's passage degree (how many
// passages mention it or belong to a document about it), which the walk needs to keep a hub's
// probability spread over its whole neighbourhood, not only the part inside the subgraph.
// params: $ids (passage ids)
// returns: passage_id, entity_id, degree
UNWIND $ids AS pid
MATCH (p:Passage {id: pid})
CALL (p) {
  MATCH (p)-[:MENTIONS]->(e:Entity)
  RETURN e
  UNION
  MATCH (p)<-[:HAS_PASSAGE]-(:Document)-[:ABOUT]->(e:Entity)
  RETURN e
}
RETURN p.id AS passage_id, e.id AS entity_id,
       COUNT { (e)<-[:MENTIONS]-() } + COUNT { (e)<-[:ABOUT]-(:Document)-[:HAS_PASSAGE]->() } AS degree
