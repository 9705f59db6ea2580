// The database's constraints.
// params: none
// returns: name, type, labels, properties
SHOW CONSTRAINTS YIELD name, type, labelsOrTypes AS labels, properties
RETURN name, type, labels, properties
