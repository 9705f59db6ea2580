// Record that the name keys cover $entities entities, the longest name being $max_tokens words,
// written by the rules of $keys_version.
// params: $entities, $max_tokens, $keys_version
// returns: nothing
MERGE (m:LinkIndex {id: 'entity-names'})
SET m.entities = $entities, m.max_tokens = $max_tokens, m.keys_version = $keys_version
