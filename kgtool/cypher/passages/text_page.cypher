// One page of passages in id order, after the id $after, with their titles and texts (the words
// of every passage embedded ahead of answers, kgtool.retrieve.word_vectors).
// params: $after (a passage id; '' for the first page), $limit
// returns: passage_id, title, text
MATCH (p:Passage)
WHERE p.id > $after
RETURN p.id AS passage_id, p.title AS title, p.text AS text
ORDER BY passage_id
LIMIT $limit
