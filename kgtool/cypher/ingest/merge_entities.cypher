// Create or update entities; aliases accumulate across edits and files.
// A new entity gets everything in ON CREATE; only an existing one that gains
// aliases is written again (the alias check is then false for new ones).
// A row may carry the kind a document parser read a new name as (quoted, name, number);
// entity resolution keeps entities of different kinds apart.
// params: $rows (list of {id, name, norm, qid, aliases, alias_text, kind?})
// returns: nothing
UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
  ON CREATE SET e.name = row.name, e.norm = row.norm, e.qid = row.qid, e.aliases = row.aliases,
                e.alias_text = row.alias_text, e.kind = row.kind
WITH e, [a IN row.aliases WHERE NOT a IN coalesce(e.aliases, []) AND a <> e.name] AS new_aliases
WHERE size(new_aliases) > 0
SET e.aliases = coalesce(e.aliases, []) + new_aliases
SET e.alias_text = reduce(s = '', a IN e.aliases | CASE s WHEN '' THEN a ELSE s + ' | ' + a END)
