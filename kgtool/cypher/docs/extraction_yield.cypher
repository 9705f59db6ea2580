// Extraction yield of the document collections in the graph: document passages and
// the distinct facts they support.
// params: none
// returns: passages, facts
MATCH (:Document)-[:HAS_PASSAGE]->(p:Passage)
OPTIONAL MATCH (p)-[:SUPPORTS]->(f:Fact)
RETURN count(DISTINCT p) AS passages, count(DISTINCT f) AS facts
