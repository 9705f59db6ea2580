// Whether the stored name keys are current: the entity count (from the count
// store) next to the count recorded by the last sync, the longest name in words,
// and the version of the keys' rules the last sync wrote (null before folded keys).
// params: none
// returns: entities, linked (null before the first sync or after link/forget_state), max_tokens, keys_version
MATCH (e:Entity)
WITH count(e) AS entities
OPTIONAL MATCH (m:LinkIndex {id: 'entity-names'})
RETURN entities, m.entities AS linked, m.max_tokens AS max_tokens, m.keys_version AS keys_version
