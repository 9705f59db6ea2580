// ReAgent: the conflicts among a run's accepted assertions and the graph, each with
// its minimal conflict set (the assertions that cannot all hold) and its culprit (the
// one to give up first). Four kinds:
//   slot_conflict   two accepted assertions give one slot different values; the later
//                   one is the culprit (roll back to before the second claim)
//   stale_evidence  an assertion rests on a fact that is not in force for this run:
//                   retracted, superseded by an in-scope edit, or hidden by the run's
//                   perturbation
//   broken_bridge   a partial answer does not connect to the next sub-question: the
//                   next hop was bound to another entity, or found nothing verifiable
//                   from it (a gap); the partial answer is the culprit
//   contradicted    evidence retrieved for the same step states the same relation of
//                   the same entity with another value, and more sources back it
//                   (Edit ASSERTS, Passage SUPPORTS, Source STATES) than back the
//                   asserted fact
// $cases/$batches/$perturbation are the run's scope (null: every edit, no perturbation).
// params: $run_id, $cases, $batches, $perturbation
// returns: kind, slot, hop, assertion_ids, culprit_id, culprit_t, detail
CALL () {
  MATCH (:Run {id: $run_id})-[:HAS_ASSERTION]->(a:Assertion {status: 'accepted'})
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
  MATCH (:Run {id: $run_id})-[:HAS_ASSERTION]->(a:Assertion {status: 'accepted'})-[:RESTS_ON]->(f:Fact)
  WITH a, f,
       CASE
         WHEN f.status = 'retracted' THEN 'the fact was retracted'
         WHEN $perturbation IS NOT NULL AND EXISTS { MATCH (:Perturbation {id: $perturbation})-[:HIDES]->(f) }
           THEN 'the fact is hidden in this view'
         WHEN EXISTS {
           MATCH (ed:Edit)-[:SUPERSEDES]->(f)
           WHERE ($cases IS NULL OR ed.case_id IN $cases) AND ($batches IS NULL OR ed.batch IN $batches)
             AND NOT EXISTS { MATCH (ed)-[:ASSERTS]->(f) }
         } THEN 'an edit in force supersedes the fact'
         ELSE null
       END AS why
  WHERE why IS NOT NULL
  RETURN 'stale_evidence' AS kind, a.slot AS slot, a.hop AS hop, [a.id] AS assertion_ids, a.id AS culprit_id,
         a.t AS culprit_t, a.agent + ' rests on ' + coalesce(f.evidence, f.id) + ': ' + why AS detail
  UNION ALL
  MATCH (:Run {id: $run_id})-[:HAS_ASSERTION]->(p:Assertion {status: 'accepted', kind: 'partial_answer'})
  MATCH (:Run {id: $run_id})-[:HAS_ASSERTION]->(n:Assertion {status: 'accepted'})
  WHERE n.hop = p.hop + 1 AND n.kind IN ['binding', 'gap']
    AND (n.kind = 'gap' OR coalesce(n.value_id, n.value) <> coalesce(p.value_id, p.value))
    AND (n.kind <> 'gap' OR coalesce(n.value_id, n.value) = coalesce(p.value_id, p.value))
  RETURN 'broken_bridge' AS kind, p.slot AS slot, p.hop AS hop, [p.id, n.id] AS assertion_ids, p.id AS culprit_id,
         p.t AS culprit_t,
         CASE n.kind WHEN 'gap' THEN 'nothing answers hop ' + toString(n.hop) + ' from ' + coalesce(p.value, '?')
              ELSE 'hop ' + toString(n.hop) + ' starts from ' + coalesce(n.value, '?') + ', not from ' +
                   coalesce(p.value, '?') END AS detail
  UNION ALL
  MATCH (:Run {id: $run_id})-[:HAS_ASSERTION]->(a:Assertion {status: 'accepted', kind: 'fact'})-[:RESTS_ON]->(f:Fact)
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
RETURN kind, slot, hop, assertion_ids, culprit_id, culprit_t, detail
ORDER BY culprit_t, kind
