// Facts that survive a deletion but lost the edit that asserted them, or the file whose
// sentence they carried, take back what their remaining sources say: source 'base' and
// the stating file's sentence (STATES.evidence) when a Source states them, else the
// document file of a passage that supports them.
// params: $fact_ids
// returns: fact_id, source, evidence
UNWIND $fact_ids AS fid
MATCH (f:Fact {id: fid})
WHERE NOT EXISTS { (:Edit)-[:ASSERTS]->(f) }
WITH f, COLLECT { MATCH (s:Source)-[st:STATES]->(f) RETURN st.evidence ORDER BY s.id } AS stated,
     COLLECT { MATCH (p:Passage)-[:SUPPORTS]->(f) WHERE p.document_id IS NOT NULL
               RETURN p.source ORDER BY p.id } AS documents
WHERE (f.source = 'edit' AND (size(stated) > 0 OR size(documents) > 0))
   OR (size(stated) > 0 AND NOT f.evidence IN stated)
SET f.source = CASE WHEN size(stated) > 0 THEN 'base' ELSE head(documents) END,
    f.evidence = coalesce(head(stated), f.evidence)
RETURN f.id AS fact_id, f.source AS source, f.evidence AS evidence
