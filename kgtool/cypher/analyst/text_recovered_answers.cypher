// C2RAG answers that came from textual recovery: the constraint on the answer
// placeholder was recovered from a passage and the run's answer is what the reader
// read there (not a graph binding it was intersected with). Lists that passage.
// params: none
// returns: run_id, question, answer, status, pattern, neff, passage_id, passage_title, passage_text
MATCH (r:Run)-[:HAS_CONSTRAINT]->(k:Constraint)
WHERE k.source = 'text' AND k.variable IS NOT NULL AND k.variable = k.target AND r.answer IN k.induced
OPTIONAL MATCH (k)-[c:CHECKED_BY {phase: 'recovery'}]->(s:Step)
OPTIONAL MATCH (s)-[:CHOSE]->(p:Passage)
RETURN r.id AS run_id, r.question AS question, r.answer AS answer, r.status AS status, k.pattern AS pattern,
       k.neff AS neff, p.id AS passage_id, p.title AS passage_title, p.text AS passage_text
ORDER BY r.started_at DESC
