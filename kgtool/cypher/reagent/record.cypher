// ReAgent: record what the agents said at one time step, in one write: accepted
// assertions (a sub-question, a fact used, a partial answer, a binding, a gap, a
// final answer) with their agent, time step t, the evidence they rest on (a Fact or
// a Passage) and the Step they belong to; and the messages between agents (assert,
// inform, reject, challenge), each optionally about one assertion.
// params: $run_id,
//         $assertions (list of {id, t, agent, kind, hop, slot, value, value_id, text, evidence_id,
//                      evidence_kind ('fact'|'passage'|null), step_id}),
//         $messages (list of {id, t, type, sender, receiver, content, assertion_id})
// returns: assertions, messages (how many of each were written)
MATCH (run:Run {id: $run_id})
CALL (run) {
  UNWIND $assertions AS a
  CREATE (n:Assertion {id: a.id, run_id: $run_id, t: a.t, agent: a.agent, kind: a.kind, hop: a.hop, slot: a.slot,
                       value: a.value, value_id: a.value_id, text: a.text, status: 'accepted',
                       created_at: datetime()})
  CREATE (run)-[:HAS_ASSERTION]->(n)
  WITH a, n
  CALL (a, n) {
    OPTIONAL MATCH (f:Fact {id: a.evidence_id}) WHERE a.evidence_kind = 'fact'
    OPTIONAL MATCH (p:Passage {id: a.evidence_id}) WHERE a.evidence_kind = 'passage'
    WITH n, coalesce(f, p) AS evidence WHERE evidence IS NOT NULL
    CREATE (n)-[:RESTS_ON]->(evidence)
  }
  CALL (a, n) {
    MATCH (s:Step {id: a.step_id})
    CREATE (n)-[:AT]->(s)
  }
  RETURN count(*) AS assertions
}
CALL (run) {
  UNWIND $messages AS m
  CREATE (msg:Message {id: m.id, run_id: $run_id, t: m.t, type: m.type, sender: m.sender, receiver: m.receiver,
                       content: m.content, created_at: datetime()})
  CREATE (run)-[:HAS_MESSAGE]->(msg)
  WITH m, msg
  CALL (m, msg) {
    MATCH (run2:Run {id: $run_id})-[:HAS_ASSERTION]->(a:Assertion {id: m.assertion_id})
    CREATE (msg)-[:ABOUT]->(a)
  }
  RETURN count(*) AS messages
}
RETURN assertions, messages
