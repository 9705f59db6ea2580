// Record the pairs a resolver pass found alike but short of the evidence a merge needs (and that
// nothing forbids) as suggestions for a person: (a)-[:MAYBE_SAME_AS {id, resolver, score, reason,
// pass_id, suggested: true}]->(b). `kgtool resolve list --suggestions` lists them, `kgtool resolve
// accept ID` merges one. Re-recording a pair updates it (its id is derived from the two entity ids).
// params: $rows (list of {id, a, b, resolver, score, reason}), $pass_id
// returns: recorded
UNWIND $rows AS row
MATCH (a:Entity {id: row.a})
MATCH (b:Entity {id: row.b})
MERGE (a)-[r:MAYBE_SAME_AS {resolver: row.resolver}]->(b)
SET r.id = row.id, r.score = row.score, r.reason = row.reason, r.pass_id = $pass_id, r.suggested = true,
    r.at = datetime()
RETURN count(r) AS recorded
