// The database's indexes.
// params: none
// returns: name, type, labels, properties, state, eventually_consistent (full-text indexes; null for others)
SHOW INDEXES YIELD name, type, labelsOrTypes AS labels, properties, state, options
RETURN name, type, labels, properties, state,
       options.indexConfig.`fulltext.eventually_consistent` AS eventually_consistent
