// Entities whose name keys are missing or older than their names: new ones,
// and those that gained aliases (aliases only accumulate) or were renamed.
// params: none
// returns: id, name, aliases
MATCH (e:Entity)
WHERE e.link_name IS NULL OR e.link_name <> coalesce(e.name, '')
   OR e.link_aliases <> size(coalesce(e.aliases, []))
RETURN e.id AS id, e.name AS name, coalesce(e.aliases, []) AS aliases
