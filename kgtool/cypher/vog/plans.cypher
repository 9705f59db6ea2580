// VoG: a run's plan versions in order, for `kgtool trace show` and the trace page:
// each version's steps, predicted answer, the arm and reason that produced it, and
// the verifications that checked it.
// params: $run_id
// returns: version, parent_version, arm, reason, topic, answer, thoughts, actions, relations, directions,
//          expected, verifications
MATCH (:Run {id: $run_id})-[:HAS_PLAN]->(p:Plan)
RETURN p.version AS version, p.parent_version AS parent_version, p.arm AS arm, p.reason AS reason,
       p.topic AS topic, p.answer AS answer, p.thoughts AS thoughts, p.actions AS actions,
       p.relations AS relations, p.directions AS directions, p.expected AS expected,
       [(v:Verdict)-[:CHECKS]->(p) | v {.valid, .error_type, .confidence, .failed_hop, .explanation}]
         AS verifications
ORDER BY version
