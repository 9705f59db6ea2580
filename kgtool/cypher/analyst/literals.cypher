// Typed literal values: each fact whose object is a value (a number, a date, a boolean, a quantity,
// a URL) rather than an entity. A value is an (:Entity:Literal) node of its fact alone (never shared:
// two facts with equal values have two nodes), its typed value copied onto the (:Fact).
// params: none (edit the LIMIT to see more)
// returns: head, relation, text (as the file wrote it), value, datatype, iso (a date at its precision),
//          precision, unit, fact_id
MATCH (h:Entity)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(v:Literal)
RETURN h.name AS head, f.relation AS relation, v.text AS text, v.value AS value, v.datatype AS datatype,
       v.iso AS iso, v.precision AS precision, v.unit AS unit, f.id AS fact_id
ORDER BY head, relation, text
LIMIT 100
