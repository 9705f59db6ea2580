// VoG: store one bandit-chosen revision of a failed step: the arm, every arm's
// UCB score and bonus terms at the moment of choice, the reward it earned and its
// parts, whether it was accepted; linked to the plan versions it went from and to
// and to the failed step. The failed step is REVISED_AS the revised plan's step of
// the same hop (kind plan_revision) and the rejected chain end BACKTRACKs to the
// first step the revised plan re-ran, as every method's revisions are.
// params: $run_id, $revision_id,
//         $revision (map: seq, hop, arm, reward, accepted, error_type, gain, penalty, confidence_before,
//                    confidence_after, answer_entropy, depth, repeated, ucb_<arm>, ucb_terms),
//         $from_version, $to_version, $failed_step_id, $revised_step_id, $chain_end_step_id,
//         $first_new_step_id, $reason
// returns: revision_id
MATCH (r:Run {id: $run_id})
CREATE (x:Revision {id: $revision_id, created_at: datetime()})
SET x += $revision
CREATE (r)-[:HAS_REVISION]->(x)
WITH r, x
CALL (r, x) {
  MATCH (r)-[:HAS_PLAN]->(a:Plan {version: $from_version})
  CREATE (x)-[:FROM]->(a)
}
CALL (r, x) {
  MATCH (r)-[:HAS_PLAN]->(b:Plan {version: $to_version})
  CREATE (x)-[:TO]->(b)
}
CALL (r, x) {
  MATCH (r)-[:HAS_STEP]->(failed:Step {id: $failed_step_id})
  CREATE (x)-[:ON]->(failed)
  WITH failed
  MATCH (r)-[:HAS_STEP]->(revised:Step {id: $revised_step_id})
  CREATE (failed)-[:REVISED_AS {kind: 'plan_revision'}]->(revised)
}
CALL (r) {
  MATCH (r)-[:HAS_STEP]->(from:Step {id: $chain_end_step_id})
  MATCH (r)-[:HAS_STEP]->(to:Step {id: $first_new_step_id})
  CREATE (from)-[:BACKTRACK {kind: 'plan_revision', reason: $reason}]->(to)
}
RETURN x.id AS revision_id
