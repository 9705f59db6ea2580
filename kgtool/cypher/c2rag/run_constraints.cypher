// C2RAG: a run's constraints for `kgtool trace show` and the HTML page: the pattern,
// relation variants, state, where the binding came from (graph or text), N_eff, the
// binding and the steps that checked it.
// params: $run_id
// returns: id, index, pattern, head, relation, tail, variants, variables, types, target, state, source, neff,
//          anchors, variable, induced, binding, binding_weights, bound_entities, steps
MATCH (r:Run {id: $run_id})-[:HAS_CONSTRAINT]->(k:Constraint)
RETURN k.id AS id, k.index AS index, k.pattern AS pattern, k.head AS head, k.relation AS relation, k.tail AS tail,
       k.variants AS variants, k.variables AS variables, k.types AS types, k.target AS target, k.state AS state,
       k.source AS source, k.neff AS neff, k.anchors AS anchors, k.variable AS variable, k.induced AS induced,
       k.binding AS binding, k.binding_weights AS binding_weights,
       [(k)-[b:BINDS]->(e:Entity) | {entity_id: e.id, name: e.name, variable: b.variable, weight: b.weight}]
         AS bound_entities,
       COLLECT { MATCH (k)-[c:CHECKED_BY]->(s:Step)
                 RETURN {step_id: s.id, kind: s.kind, phase: c.phase, state: s.state, neff: s.neff}
                 ORDER BY s.attempt, s.created_at } AS steps
ORDER BY k.index
