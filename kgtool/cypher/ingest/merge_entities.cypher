// Create or update entities; aliases accumulate across edits and files.
// params: $rows (list of {id, name, norm, qid, aliases, alias_text})
// returns: nothing
UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
  ON CREATE SET e.name = row.name, e.norm = row.norm, e.qid = row.qid, e.aliases = row.aliases
WITH e, row
WITH e, [a IN row.aliases WHERE NOT a IN coalesce(e.aliases, []) AND a <> e.name] AS new_aliases
WHERE size(new_aliases) > 0 OR e.alias_text IS NULL
SET e.aliases = coalesce(e.aliases, []) + new_aliases
SET e.alias_text = reduce(s = '', a IN e.aliases | CASE s WHEN '' THEN a ELSE s + ' | ' + a END)
