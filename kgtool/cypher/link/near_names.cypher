// Entities whose name or aliases are near a text's name-like words (kgtool.ingest.near_names builds
// $query from letters and digits alone, each word a Lucene fuzzy term; Python decides which is meant).
// params: $query, $limit
// returns: id, name, aliases
CALL db.index.fulltext.queryNodes('entity_names', $query, {limit: $limit}) YIELD node
RETURN node.id AS id, node.name AS name, coalesce(node.aliases, []) AS aliases
