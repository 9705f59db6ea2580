// Perturbations an evaluation made for itself (temporary) and did not remove (it was
// interrupted or killed), that no run still open answers under.
// params: none
// returns: id, added, created_at
MATCH (p:Perturbation)
WHERE p.temporary = true AND NOT EXISTS { MATCH (r:Run {status: 'running'}) WHERE r.perturbation = p.id }
RETURN p.id AS id, COUNT { (p)-[:ADDS]->() } AS added, toString(p.created_at) AS created_at
ORDER BY created_at
