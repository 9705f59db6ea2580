// C2RAG: a constraint the graph could not ground goes to textual recovery. The
// recovery step revises the structural one: (structural)-[:REVISED_AS {kind}]->(recovery),
// with the reason on a BACKTRACK link, so analysts' revision queries see it like
// any other method's fallback.
// params: $old_step_id, $new_step_id, $kind, $reason
// returns: step_id
MATCH (old:Step {id: $old_step_id}), (new:Step {id: $new_step_id})
CREATE (old)-[:REVISED_AS {kind: $kind}]->(new)
CREATE (old)-[:BACKTRACK {kind: $kind, reason: $reason}]->(new)
RETURN new.id AS step_id
