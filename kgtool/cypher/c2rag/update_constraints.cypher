// C2RAG: record what happened to constraints as they resolve. Per row: new property
// values (state: pending|resolved|unresolved|recovered|failed; source: graph|text;
// neff; anchors; the variable it induced with its candidate set E_i(v) and, after
// intersection or union across constraints, the variable's binding E_b(v)), the steps
// that checked it ((:Constraint)-[:CHECKED_BY {phase: structural|recovery}]->(:Step)),
// and, when `binds` is not null, its current binding as (:Constraint)-[:BINDS
// {variable, weight}]->(:Entity) links (replacing earlier ones; values that are not
// graph entities stay in the `binding` property only).
// params: $run_id, $rows (list of {id, props: map, steps: list of {step_id, phase},
//                binds: null or list of {entity_id, variable, weight}})
// returns: constraint_id, state
MATCH (run:Run {id: $run_id})
UNWIND $rows AS row
MATCH (run)-[:HAS_CONSTRAINT]->(k:Constraint {id: row.id})
SET k += row.props, k.updated_at = datetime()
WITH k, row
CALL (k, row) {
  UNWIND row.steps AS st
  MATCH (s:Step {id: st.step_id})
  MERGE (k)-[c:CHECKED_BY]->(s)
  SET c.phase = st.phase
}
CALL (k, row) {
  WITH k, row WHERE row.binds IS NOT NULL
  OPTIONAL MATCH (k)-[old:BINDS]->()
  DELETE old
}
CALL (k, row) {
  WITH k, row WHERE row.binds IS NOT NULL
  UNWIND row.binds AS b
  MATCH (e:Entity {id: b.entity_id})
  CREATE (k)-[:BINDS {variable: b.variable, weight: b.weight}]->(e)
}
RETURN k.id AS constraint_id, k.state AS state
