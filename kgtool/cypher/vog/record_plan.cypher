// VoG: store one version of a run's reasoning plan. Version 0 is the plan agent's
// draft; every revision stores a new version linked from the one it revised
// (REVISED_TO {arm}), so the plan history of a run is a chain of Plan nodes.
// Steps are parallel lists (Neo4j properties hold no maps): per step its thought,
// action (sub-question), expected relation and direction, predicted observation.
// params: $run_id, $plan_id, $version, $parent_version, $arm, $reason, $topic, $topic_id, $answer,
//         $thoughts, $actions, $relations, $directions, $expected
// returns: plan_id, version
MATCH (r:Run {id: $run_id})
CREATE (p:Plan {id: $plan_id, version: $version, parent_version: $parent_version, arm: $arm, reason: $reason,
                topic: $topic, topic_id: $topic_id, answer: $answer, thoughts: $thoughts, actions: $actions,
                relations: $relations, directions: $directions, expected: $expected, created_at: datetime()})
CREATE (r)-[:HAS_PLAN]->(p)
WITH r, p
CALL (r, p) {
  MATCH (r)-[:HAS_PLAN]->(parent:Plan {version: $parent_version})
  CREATE (parent)-[:REVISED_TO {arm: $arm}]->(p)
}
RETURN p.id AS plan_id, p.version AS version
