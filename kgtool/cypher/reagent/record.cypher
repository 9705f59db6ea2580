// ReAgent: record what the agents said since the last write, in one write, and (with
// with_conflicts) read the conflicts that follow from it, so the loop spends one round
// trip where it spent two:
// - accepted assertions (a sub-question, a fact used, a partial answer, a binding, a gap,
//   a final answer) with their agent, time step t, the evidence they rest on (a Fact or a
//   Passage) and the Step they belong to;
// - the messages between agents (assert, inform, reject, challenge), each optionally about
//   one assertion;
// - checkpoints: the state of the assertion set at time step t as one agent sees it (agent
//   'verifier': its local checkpoints) or as every agent sees it (agent null: a global,
//   consistent checkpoint); a checkpoint HOLDS the assertions accepted by then (t <= its t),
//   so a rollback knows what to keep;
// - conflicts among the run's accepted assertions and the graph, each with its minimal
//   conflict set (the assertions that cannot all hold) and its culprit (the one to give up
//   first), in time order of the culprit. Four kinds:
//     slot_conflict   two accepted assertions give one slot different values; the later
//                     one is the culprit (roll back to before the second claim)
//     stale_evidence  an assertion rests on a fact that is not in force for this run:
//                     retracted, superseded by an in-scope edit, or hidden by the run's
//                     perturbation
//     broken_bridge   a partial answer does not connect to the next sub-question: the
//                     next hop was bound to another entity, or found nothing verifiable
//                     from it (a gap); the partial answer is the culprit
//     contradicted    evidence retrieved for the same step states the same relation of
//                     the same entity with another value, and more sources back it
//                     (Edit ASSERTS, Passage SUPPORTS, Source STATES) than back the
//                     asserted fact
// cases/batches/perturbation are the run's scope (null: every edit, no perturbation).
// All parameters come in one map, $p: the server keys a cached plan by each parameter's type and size
// (0, 1, up to 10, up to 100 ... list items or characters), so lists and texts of varying length
// made new plans all along a run (0.1-1 s each on a busy machine); a map has one.
// params: $p, a map of: run_id,
//         assertions (list of {id, t, agent, kind, hop, slot, value, value_id, text, evidence_id,
//                      evidence_kind ('fact'|'passage'|null), step_id}),
//         messages (list of {id, t, type, sender, receiver, content, assertion_id}),
//         checkpoints (list of {id, t, agent, label}),
//         with_conflicts (bool), cases, batches, perturbation
// returns: assertions, messages, checkpoints (how many of each were written),
//          conflicts (empty unless with_conflicts: list of {kind, slot, hop, assertion_ids, culprit_id,
//                     culprit_t, detail})
MATCH (run:Run {id: $p.run_id})
CALL (run) {
  UNWIND $p.assertions AS a
  CREATE (n:Assertion {id: a.id, run_id: $p.run_id, t: a.t, agent: a.agent, kind: a.kind, hop: a.hop, slot: a.slot,
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
  UNWIND $p.messages AS m
  CREATE (msg:Message {id: m.id, run_id: $p.run_id, t: m.t, type: m.type, sender: m.sender, receiver: m.receiver,
                       content: m.content, created_at: datetime()})
  CREATE (run)-[:HAS_MESSAGE]->(msg)
  WITH m, msg
  CALL (m, msg) {
    MATCH (run2:Run {id: $p.run_id})-[:HAS_ASSERTION]->(a:Assertion {id: m.assertion_id})
    CREATE (msg)-[:ABOUT]->(a)
  }
  RETURN count(*) AS messages
}
CALL (run) {
  UNWIND $p.checkpoints AS k
  CREATE (c:Checkpoint {id: k.id, run_id: $p.run_id, t: k.t, agent: k.agent, label: k.label, created_at: datetime()})
  CREATE (run)-[:HAS_CHECKPOINT]->(c)
  WITH run, k, c
  CALL (run, k, c) {
    MATCH (run)-[:HAS_ASSERTION]->(a:Assertion {status: 'accepted'})
    WHERE a.t <= k.t AND (k.agent IS NULL OR a.agent = k.agent)
    CREATE (c)-[:HOLDS]->(a)
  }
  RETURN count(*) AS checkpoints
}
CALL () {
  CALL () {
    WITH 1 AS asked WHERE $p.with_conflicts
    MATCH (:Run {id: $p.run_id})-[:HAS_ASSERTION]->(a:Assertion {status: 'accepted'})
    WHERE a.slot IS NOT NULL AND a.kind IN ['fact', 'partial_answer', 'binding', 'final_answer']
    WITH a.slot AS slot, collect(a) AS claims
    WHERE size(claims) > 1
    UNWIND claims AS first
    UNWIND claims AS second
    WITH slot, first, second
    WHERE first.t < second.t AND coalesce(first.value_id, first.value) <> coalesce(second.value_id, second.value)
    RETURN 'slot_conflict' AS kind, slot, second.hop AS hop, [first.id, second.id] AS assertion_ids,
           second.id AS culprit_id, second.t AS culprit_t,
           second.agent + ' says ' + coalesce(second.value, '?') + ' but ' + first.agent + ' said ' +
           coalesce(first.value, '?') AS detail
    UNION ALL
    WITH 1 AS asked WHERE $p.with_conflicts
    MATCH (:Run {id: $p.run_id})-[:HAS_ASSERTION]->(a:Assertion {status: 'accepted'})-[:RESTS_ON]->(f:Fact)
    WITH a, f,
         CASE
           WHEN f.status = 'retracted' THEN 'the fact was retracted'
           WHEN $p.perturbation IS NOT NULL AND EXISTS { MATCH (:Perturbation {id: $p.perturbation})-[:HIDES]->(f) }
             THEN 'the fact is hidden in this view'
           WHEN EXISTS {
             MATCH (ed:Edit)-[:SUPERSEDES]->(f)
             WHERE ($p.cases IS NULL OR ed.case_id IN $p.cases) AND ($p.batches IS NULL OR ed.batch IN $p.batches)
               AND NOT EXISTS { MATCH (ed)-[:ASSERTS]->(f) }
           } THEN 'an edit in force supersedes the fact'
           ELSE null
         END AS why
    WHERE why IS NOT NULL
    RETURN 'stale_evidence' AS kind, a.slot AS slot, a.hop AS hop, [a.id] AS assertion_ids, a.id AS culprit_id,
           a.t AS culprit_t, a.agent + ' rests on ' + coalesce(f.evidence, f.id) + ': ' + why AS detail
    UNION ALL
    WITH 1 AS asked WHERE $p.with_conflicts
    MATCH (:Run {id: $p.run_id})-[:HAS_ASSERTION]->(p:Assertion {status: 'accepted', kind: 'partial_answer'})
    MATCH (:Run {id: $p.run_id})-[:HAS_ASSERTION]->(n:Assertion {status: 'accepted'})
    WHERE n.hop = p.hop + 1 AND n.kind IN ['binding', 'gap']
      AND (n.kind = 'gap' OR coalesce(n.value_id, n.value) <> coalesce(p.value_id, p.value))
      AND (n.kind <> 'gap' OR coalesce(n.value_id, n.value) = coalesce(p.value_id, p.value))
    RETURN 'broken_bridge' AS kind, p.slot AS slot, p.hop AS hop, [p.id, n.id] AS assertion_ids, p.id AS culprit_id,
           p.t AS culprit_t,
           CASE n.kind WHEN 'gap' THEN 'nothing answers hop ' + toString(n.hop) + ' from ' + coalesce(p.value, '?')
                ELSE 'hop ' + toString(n.hop) + ' starts from ' + coalesce(n.value, '?') + ', not from ' +
                     coalesce(p.value, '?') END AS detail
    UNION ALL
    WITH 1 AS asked WHERE $p.with_conflicts
    MATCH (:Run {id: $p.run_id})-[:HAS_ASSERTION]->(a:Assertion {status: 'accepted', kind: 'fact'})-[:RESTS_ON]->(f:Fact)
    MATCH (a)-[:AT]->(s:Step)-[:CANDIDATE]->(g:Fact)
    WHERE g <> f AND g.relation_key = f.relation_key AND g.status <> 'retracted'
      AND ((f.head_id = s.entity_id AND g.head_id = s.entity_id AND g.tail_id <> f.tail_id)
        OR (f.tail_id = s.entity_id AND g.tail_id = s.entity_id AND g.head_id <> f.head_id))
    WITH a, f, g, COUNT { (f)<-[:ASSERTS|SUPPORTS|STATES]-() } AS own, COUNT { (g)<-[:ASSERTS|SUPPORTS|STATES]-() } AS other
    WHERE other > own
    WITH a, f, collect(g)[0] AS g, max(other) AS other, own
    RETURN 'contradicted' AS kind, a.slot AS slot, a.hop AS hop, [a.id] AS assertion_ids, a.id AS culprit_id,
           a.t AS culprit_t,
           coalesce(g.evidence, g.id) + ' (' + toString(other) + ' sources) contradicts ' + coalesce(f.evidence, f.id) +
           ' (' + toString(own) + ')' AS detail
  }
  WITH kind, slot, hop, assertion_ids, culprit_id, culprit_t, detail
  ORDER BY culprit_t, kind
  RETURN collect({kind: kind, slot: slot, hop: hop, assertion_ids: assertion_ids, culprit_id: culprit_id,
                  culprit_t: culprit_t, detail: detail}) AS conflicts
}
RETURN assertions, messages, checkpoints, conflicts
