// C2RAG evidence blocks: the source passages of the facts a resolved constraint kept
// (Passage-[:SUPPORTS]->Fact), so the answer sees text, not only triples.
// params: $fact_ids
// returns: fact_id, passage_id, title, text
UNWIND $fact_ids AS fid
MATCH (p:Passage)-[:SUPPORTS]->(f:Fact {id: fid})
RETURN fid AS fact_id, p.id AS passage_id, p.title AS title, p.text AS text
