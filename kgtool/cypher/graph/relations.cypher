// Every relation with its label and the phrasings the corpus gave for it.
// params: none
// returns: key, label, phrases
MATCH (r:Relation)
RETURN r.key AS key, r.label AS label, coalesce(r.phrases, []) AS phrases
