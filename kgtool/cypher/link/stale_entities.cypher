// Entities whose name keys are missing or older than their names: new ones,
// and those that gained aliases (aliases only accumulate) or were renamed; with
// $refold, also every entity with a name outside ASCII (keys written before the
// accent-folded keys existed lack those).
// params: $refold (boolean)
// returns: id, name, aliases
MATCH (e:Entity)
WHERE e.link_name IS NULL OR e.link_name <> coalesce(e.name, '')
   OR e.link_aliases <> size(coalesce(e.aliases, []))
   OR ($refold AND any(n IN [coalesce(e.name, '')] + coalesce(e.aliases, []) WHERE n =~ '(?s).*[^\\x00-\\x7F].*'))
RETURN e.id AS id, e.name AS name, coalesce(e.aliases, []) AS aliases
