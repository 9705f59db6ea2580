// The stored perturbations (kgtool eval --perturb ... --keep-perturbation, kg.perturb()):
// their settings, what they hide and add, and the runs answered under each.
// params: none
// returns: id, drop, distract, seed, hidden, added, runs, created_at
MATCH (p:Perturbation)
RETURN p.id AS id, p.drop AS drop, p.distract AS distract, p.seed AS seed,
       COUNT { (p)-[:HIDES]->() } AS hidden, COUNT { (p)-[:ADDS]->() } AS added,
       COUNT { MATCH (r:Run) WHERE r.perturbation = p.id } AS runs, toString(p.created_at) AS created_at
ORDER BY created_at
