// What entity resolution knows of each entity: names, Wikidata id, kind, and its relation
// profile (every fact it is the head or tail of, with the entity at the other end).
// Retracted facts (kept only for stored runs) are left out, and so are literal values (:Literal, one
// node per fact by design: two equal numbers of two facts are two values, never one entity).
// params: $ids (list of entity ids, or null for every entity)
// returns: id, name, aliases, qid, kind, links (list of {relation, outgoing, other_id, other_name, sources: the
//          fact files stating the fact})
MATCH (e:Entity)
WHERE ($ids IS NULL OR e.id IN $ids) AND NOT e:Literal
RETURN e.id AS id, e.name AS name, coalesce(e.aliases, []) AS aliases, e.qid AS qid, e.kind AS kind,
       COLLECT {
         MATCH (e)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(o:Entity)
         WHERE coalesce(f.status, '') <> 'retracted'
         RETURN {relation: f.relation, outgoing: true, other_id: o.id, other_name: o.name,
                 sources: [(src:Source)-[:STATES]->(f) | src.id]} AS link
         UNION
         MATCH (s:Entity)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(e)
         WHERE coalesce(f.status, '') <> 'retracted'
         RETURN {relation: f.relation, outgoing: false, other_id: s.id, other_name: s.name,
                 sources: [(src:Source)-[:STATES]->(f) | src.id]} AS link
       } AS links
