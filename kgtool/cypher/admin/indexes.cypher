// The database's indexes.
// params: none
// returns: name, type, labels, properties, state
SHOW INDEXES YIELD name, type, labelsOrTypes AS labels, properties, state
RETURN name, type, labels, properties, state
