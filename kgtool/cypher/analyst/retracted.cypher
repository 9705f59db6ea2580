// Facts and passages that a deletion retracted but kept because stored runs used them:
// what was deleted (retracted_by), when, and the runs that used each one.
// params: none
// returns: id, kind, relation, head, tail, retracted_by, retracted_at, runs
MATCH (n)
WHERE (n:Fact OR n:Passage) AND n.status = 'retracted'
RETURN n.id AS id, CASE WHEN n:Passage THEN 'passage' ELSE 'fact' END AS kind,
       coalesce(n.relation, n.title) AS relation,
       head(COLLECT { MATCH (h:Entity)-[:SUBJECT_OF]->(n) RETURN h.name }) AS head,
       head(COLLECT { MATCH (n)-[:OBJECT]->(t:Entity) RETURN t.name }) AS tail,
       n.retracted_by AS retracted_by, toString(n.retracted_at) AS retracted_at,
       COLLECT { MATCH (r:Run)-[:HAS_STEP]->(:Step)-[:CANDIDATE|CHOSE]->(n) RETURN DISTINCT r.id } AS runs
ORDER BY retracted_at, id
