// Open a reasoning run for a question, with the method's resolved config.
// $owner names the process that answers (host:pid), so an interrupted process closes its own runs only.
// params: $run_id, $question_id, $question, $method, $agents, $scope, $settings, $config, $perturbation, $owner
// returns: run_id
MERGE (q:Question {id: $question_id})
  ON CREATE SET q.text = $question
CREATE (r:Run {id: $run_id, method: $method, agents: $agents, scope: $scope, question_id: $question_id,
               question: $question, status: 'running', settings: $settings, config: $config,
               perturbation: $perturbation, owner: $owner, started_at: datetime()})
CREATE (r)-[:FOR]->(q)
RETURN r.id AS run_id
