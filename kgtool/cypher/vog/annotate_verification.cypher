// VoG: what a verification adds to its Verdict and Step: the plan version it
// checked (Verdict -[:CHECKS]-> Plan), the verifier's confidence and named check
// scores, whether the step revisited an entity, the observation the graph gives
// instead; on the Step, the entropy-adaptive relation width k, the normalised
// entropy of the relation scores and the relations the retrieve agent kept.
// params: $run_id, $verdict_id, $step_id, $plan_version, $confidence, $repeated, $revised_observation,
//         $checks (map name -> number), $width, $relation_entropy, $relations, $selected
// returns: verdict_id
MATCH (r:Run {id: $run_id})-[:HAS_VERDICT]->(v:Verdict {id: $verdict_id})
SET v += $checks, v.confidence = $confidence, v.repeated = $repeated,
    v.revised_observation = $revised_observation, v.plan_version = $plan_version
WITH r, v
CALL (r, v) {
  MATCH (r)-[:HAS_PLAN]->(p:Plan {version: $plan_version})
  CREATE (v)-[:CHECKS]->(p)
}
CALL (r) {
  MATCH (r)-[:HAS_STEP]->(s:Step {id: $step_id})
  SET s.width = $width, s.relation_entropy = $relation_entropy, s.relations = $relations,
      s.selected_relations = $selected, s.plan_version = $plan_version
}
RETURN v.id AS verdict_id
