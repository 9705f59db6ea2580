// Create or update relations (label, external id, phrasings taken from the corpus).
// params: $rows (list of {key, label, relation_id, phrases})
// returns: nothing
UNWIND $rows AS row
MERGE (r:Relation {key: row.key})
  ON CREATE SET r.label = row.label, r.relation_id = row.relation_id, r.phrases = row.phrases
WITH r, [p IN row.phrases WHERE NOT p IN coalesce(r.phrases, [])] AS new_phrases
WHERE size(new_phrases) > 0
SET r.phrases = coalesce(r.phrases, []) + new_phrases
