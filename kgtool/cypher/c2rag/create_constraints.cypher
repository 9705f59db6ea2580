// C2RAG: store a run's constraint plan, one Constraint node per atomic constraint
// (h, r, t) in plan order, with its m relation variants and typed placeholders.
// Every constraint starts 'pending'; c2rag/update_constraints records how it resolves.
// params: $run_id,
//         $constraints (list of {id, index, head, relation, tail, variants, variables, types, target, pattern})
// returns: constraint_id
MATCH (r:Run {id: $run_id})
UNWIND $constraints AS c
CREATE (k:Constraint {id: c.id, index: c.index, head: c.head, relation: c.relation, tail: c.tail,
                      variants: c.variants, variables: c.variables, types: c.types, target: c.target,
                      pattern: c.pattern, state: 'pending', created_at: datetime()})
CREATE (r)-[:HAS_CONSTRAINT]->(k)
RETURN k.id AS constraint_id
