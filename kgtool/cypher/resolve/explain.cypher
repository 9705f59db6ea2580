// One merge in full: the record, the survivor now, and which moved facts come from which sources.
// params: $merge_id
// returns: merge (the record's properties), survivor ({id, name, aliases} or null), facts (list of
//          {id, head, relation, tail, status, sources})
MATCH (m:EntityMerge {id: $merge_id})
OPTIONAL MATCH (m)-[:INTO]->(s)
RETURN m {.*, created_at: toString(m.created_at)} AS merge,
       CASE WHEN s IS NULL THEN null ELSE {id: s.id, name: s.name, aliases: s.aliases, merged: s:MergedEntity} END AS survivor,
       COLLECT {
         UNWIND m.head_facts + m.tail_facts AS fid
         MATCH (h)-[:SUBJECT_OF]->(f:Fact {id: fid})-[:OBJECT]->(t)
         RETURN {id: f.id, head: h.name, relation: f.relation, tail: t.name, status: f.status,
                 sources: COLLECT { MATCH (src:Source)-[:STATES]->(f) RETURN src.name }
                          + COLLECT { MATCH (ed:Edit)-[:ASSERTS|SUPERSEDES]->(f) RETURN 'edit ' + ed.id }}
       } AS facts
