// Record that the name keys cover $entities entities, the longest name being $max_tokens words.
// params: $entities, $max_tokens
// returns: nothing
MERGE (m:LinkIndex {id: 'entity-names'})
SET m.entities = $entities, m.max_tokens = $max_tokens
