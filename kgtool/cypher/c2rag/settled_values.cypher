// C2RAG's sufficiency check reads from the graph which candidates of a constraint are the
// stated values of one many-valued relation: facts whose subject is the constraint's known
// end (one of $subject_ids), that an edit or a fact file states, and that nothing contests.
// Several such facts of one relation all hold (two parents, several children): they are one
// settled hop, not candidates competing for it. Contested is what the ingest marks as a
// conflict over a slot: an edit that supersedes the fact, or an edit asserting it that
// supersedes another fact, overrides or is overridden, or conflicts with another edit (an
// edit and the old fact of a single-valued relation stay ambiguity). Passage facts (not
// stated) never settle anything this way.
// params: $fact_ids, $subject_ids
// returns: fact_id, relation_key (one row per candidate that is such a value)
UNWIND $fact_ids AS fid
MATCH (h:Entity)-[:SUBJECT_OF]->(f:Fact {id: fid})
WHERE h.id IN $subject_ids
  AND (f.source IN ['edit', 'base'] OR EXISTS { (:Edit)-[:ASSERTS]->(f) } OR EXISTS { (:Source)-[:STATES]->(f) })
  AND NOT EXISTS { (:Edit)-[:SUPERSEDES]->(f) }
  AND NOT EXISTS {
    MATCH (ed:Edit)-[:ASSERTS]->(f)
    WHERE ed.conflict = true OR ed.superseded_by IS NOT NULL
       OR EXISTS { (ed)-[:SUPERSEDES]->(:Fact) } OR EXISTS { (ed)-[:OVERRIDES|CONFLICTS_WITH]-(:Edit) }
  }
RETURN fid AS fact_id, f.relation_key AS relation_key
