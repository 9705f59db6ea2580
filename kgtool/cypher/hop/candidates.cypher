// The candidate pools of one or more entities: every 1-hop fact, both directions,
// active within the edit scope, with its evidence sentence.
// Scope: $cases and $batches are lists, or null for "every edit in the store".
// Within a scope, an edit fact counts only if an in-scope edit asserts it, and any
// other fact (base knowledge, a fact file's or a document's) counts unless an
// in-scope edit supersedes it.
// $perturbation, when not null, names a stored perturbation (kgtool/eval/perturb.py)
// seen on top of the scope: the facts it HIDES leave the pool, the distractor facts it
// ADDS join it. When null, its two checks are skipped and the rest reads as without it;
// distractors then never pass (status 'perturbation', source 'distractor', no Edit
// asserts them).
// A retracted fact (deleted from the graph but kept for the stored runs that used it,
// see cypher/delete/) never passes. Within a scope, an edit that a later in-scope edit
// OVERRIDES (conflict policy `latest`) no longer counts as asserting its facts.
// $per_group caps the facts returned per (entity, relation, direction) group; the
// offline planner reads a whole beam of entities this way in one round trip, and
// a hub's thousand citizens cost it a handful of rows. null returns every fact (a hop).
// group_size is the group's full size, so the caller knows when a pool was cut.
// One row per entity (entities without facts have none), its facts as a list:
// the driver decodes one list of maps much faster than as many records.
// The other end of a fact (and its name) is read only for the facts kept: a hub's
// thousands of facts in a group cost the scope check and the count, not the walk
// to each neighbour. A fact has one subject and one object, so the facts keep the
// order of the first walk and the same ones are kept as when both ends were read first.
// stated is true for a fact an edit or a fact file states (source 'edit' or 'base', an
// asserting Edit, or a stating Source), false for one only read from passages: the
// source prior of kgtool.reason.agents.offline ranks the former first.
// params: $entity_ids, $per_group, $cases, $batches, $perturbation
// returns: entity_id, facts (list of {group_size, fact_id, head_id, head, relation, relation_key,
//   relation_id, tail_id, tail, evidence, direction, stated})
UNWIND $entity_ids AS entity_id
MATCH (e:Entity {id: entity_id})
CALL (e) {
  MATCH (e)-[:SUBJECT_OF]->(f:Fact)
  RETURN f, 'out' AS direction
  UNION ALL
  MATCH (e)<-[:OBJECT]-(f:Fact)
  RETURN f, 'in' AS direction
}
WITH e, f, direction, f.status AS status
WHERE CASE
  WHEN status = 'retracted' THEN false
  WHEN $perturbation IS NOT NULL AND f.perturbation = $perturbation THEN true
  WHEN $perturbation IS NOT NULL AND EXISTS { MATCH (:Perturbation {id: $perturbation})-[:HIDES]->(f) } THEN false
  WHEN $cases IS NULL AND $batches IS NULL THEN status = 'active'
  ELSE EXISTS {
         MATCH (ed:Edit)-[:ASSERTS]->(f)
         WHERE ($cases IS NULL OR ed.case_id IN $cases) AND ($batches IS NULL OR ed.batch IN $batches)
           AND NOT EXISTS {
             MATCH (ed)<-[:OVERRIDES]-(w:Edit)
             WHERE ($cases IS NULL OR w.case_id IN $cases) AND ($batches IS NULL OR w.batch IN $batches)
           }
       }
       OR (coalesce(f.source, 'base') <> 'edit' AND f.perturbation IS NULL AND NOT EXISTS {
         MATCH (ed:Edit)-[:SUPERSEDES]->(f)
         WHERE ($cases IS NULL OR ed.case_id IN $cases) AND ($batches IS NULL OR ed.batch IN $batches)
       })
  END
WITH e, f.relation_key AS key, direction, collect(f) AS facts
WITH e, direction, size(facts) AS group_size,
     CASE WHEN $per_group IS NULL THEN facts ELSE facts[..$per_group] END AS kept
UNWIND kept AS f
CALL (e, f, direction) {
  WITH e, f, direction WHERE direction = 'out'
  MATCH (f)-[:OBJECT]->(t:Entity)
  RETURN e AS h, t
  UNION ALL
  WITH e, f, direction WHERE direction = 'in'
  MATCH (h:Entity)-[:SUBJECT_OF]->(f)
  RETURN h, e AS t
}
RETURN e.id AS entity_id,
       collect({group_size: group_size, fact_id: f.id, head_id: h.id, head: h.name, relation: f.relation,
                relation_key: f.relation_key, relation_id: f.relation_id, tail_id: t.id, tail: t.name,
                evidence: f.evidence, direction: direction,
                stated: f.source IN ['edit', 'base'] OR EXISTS { (:Edit)-[:ASSERTS]->(f) }
                        OR EXISTS { (:Source)-[:STATES]->(f) }}) AS facts
