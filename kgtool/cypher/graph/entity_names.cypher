// Every entity's id, name and aliases (to build the linker's gazetteer).
// params: none
// returns: id, name, aliases
MATCH (e:Entity)
RETURN e.id AS id, e.name AS name, coalesce(e.aliases, []) AS aliases
