// Merge records (cypher/resolve/merge) nothing is left of once a deletion is done: the
// survivor is gone, or every fact, mention, document and edit the merge moved is gone (the
// deleted source was all the absorbed entity had). The record goes with its tombstone, so a
// deleted source leaves no merge behind; one the other source still needs stays.
// params: none
// returns: merge_id, absorbed_id
MATCH (m:EntityMerge)
WHERE NOT EXISTS { (m)-[:INTO]->(:Entity) }
   OR (NOT EXISTS { MATCH (f:Fact) WHERE f.id IN m.head_facts + m.tail_facts }
       AND NOT EXISTS { MATCH (p:Passage) WHERE p.id IN m.mentions }
       AND NOT EXISTS { MATCH (d:Document) WHERE d.id IN m.about }
       AND NOT EXISTS { MATCH (ed:Edit) WHERE ed.id IN m.subject_edits + m.object_edits })
WITH m, m.id AS merge_id, m.absorbed_id AS absorbed_id
OPTIONAL MATCH (m)-[:ABSORBED]->(a:MergedEntity)
DETACH DELETE a, m
RETURN merge_id, absorbed_id
