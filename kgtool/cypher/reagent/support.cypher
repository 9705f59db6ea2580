// ReAgent: how many sources back each of some facts or passages (Edit ASSERTS,
// Passage SUPPORTS, Source STATES for a fact; the facts a passage SUPPORTS, plus
// one for the passage itself) - what the controller weighs when it overrides in
// favour of the best-supported branch.
// params: $ids
// returns: id, support
UNWIND $ids AS id
OPTIONAL MATCH (f:Fact {id: id})
OPTIONAL MATCH (p:Passage {id: id})
RETURN id,
       CASE WHEN f IS NOT NULL THEN COUNT { (f)<-[:ASSERTS|SUPPORTS|STATES]-() }
            WHEN p IS NOT NULL THEN 1 + COUNT { (p)-[:SUPPORTS]->() }
            ELSE 0 END AS support
