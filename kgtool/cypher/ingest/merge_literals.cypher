// Type the nodes of literal values and copy each value onto its fact. A literal (a number, a
// date, a boolean, a quantity, a URL: kgtool/ingest/literals.py) is the object of exactly one
// fact: an (:Entity:Literal) whose id derives from the head, the relation and the value, so two
// facts with equal values never share it and the hop reads (f)-[:OBJECT]->(:Entity) as for any
// object. Its properties: name and text (what the file wrote), datatype (integer, float, date,
// boolean, url, string), value (typed: an integer, a float, a boolean, a date (for a year or a
// month its first day), or the text), iso (a date at its precision: 1990, 1990-03, 1990-03-12),
// precision (year, month, day), unit (a quantity's). The fact gets the same value, datatype,
// precision and unit, and value_text. Entity resolution leaves literals alone (resolve_checked).
// params: $rows (list of {id, fact_id, datatype, lexical, day, text, precision, unit})
// returns: nothing
UNWIND $rows AS row
MATCH (v:Entity {id: row.id})
WITH v, row, CASE row.datatype
  WHEN 'integer' THEN toInteger(row.lexical)
  WHEN 'float' THEN toFloat(row.lexical)
  WHEN 'boolean' THEN row.lexical = 'true'
  WHEN 'date' THEN date(row.day)
  ELSE row.lexical END AS value
SET v:Literal, v.datatype = row.datatype, v.value = value, v.text = row.text, v.precision = row.precision,
    v.unit = row.unit, v.iso = CASE row.datatype WHEN 'date' THEN row.lexical END, v.resolve_checked = true
WITH v, row, value
MATCH (f:Fact {id: row.fact_id})
SET f.value = value, f.datatype = row.datatype, f.value_text = row.text, f.precision = row.precision,
    f.unit = row.unit
