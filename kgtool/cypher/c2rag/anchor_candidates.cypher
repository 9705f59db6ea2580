// C2RAG anchor matching: entities whose name or aliases share words with a constraint's
// constant (the entity_names full-text index proposes them; token coverage S_tok and
// string similarity rank them in Python). $query holds plain words (no Lucene syntax).
// params: $query, $limit
// returns: entity_id, name, aliases, fulltext
CALL db.index.fulltext.queryNodes('entity_names', $query, {limit: $limit}) YIELD node, score
RETURN node.id AS entity_id, node.name AS name, coalesce(node.aliases, []) AS aliases, score AS fulltext
ORDER BY fulltext DESC
