// Record the pairs a resolver pass left apart although it scored them (under the threshold,
// refused by a guard, or ambiguous) as (a)-[:MAYBE_SAME_AS {resolver, score, reason}]->(b),
// for analysts (cypher/analyst/resolve_near_misses.cypher). Re-recording a pair updates it.
// params: $rows (list of {a, b, resolver, score, reason})
// returns: recorded
UNWIND $rows AS row
MATCH (a:Entity {id: row.a})
MATCH (b:Entity {id: row.b})
MERGE (a)-[r:MAYBE_SAME_AS {resolver: row.resolver}]->(b)
SET r.score = row.score, r.reason = row.reason, r.at = datetime()
RETURN count(r) AS recorded
