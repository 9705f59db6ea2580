// The edits each answer relied on: the edits asserting the facts chosen in the
// final chain of every run.
// params: none
// returns: run_id, question, answer, hop, edit_id, edit_description, case_id, batch
MATCH (r:Run)-[:HAS_STEP]->(s:Step {in_chain: true})-[:CHOSE]->(f:Fact)<-[:ASSERTS]-(e:Edit)
RETURN r.id AS run_id, r.question AS question, r.answer AS answer, s.hop AS hop, e.id AS edit_id,
       e.description AS edit_description, e.case_id AS case_id, e.batch AS batch
ORDER BY r.started_at DESC, hop
