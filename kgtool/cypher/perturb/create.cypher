// Record a perturbation: a view of the graph with some facts hidden and distractors
// added. The stored facts are never changed; answering sees the view only when its
// scope names this perturbation. Runs in one transaction with perturb/hide_facts and
// perturb/add_distractors.
// params: $id, $drop, $distract, $seed, $hidden, $added
// returns: id
CREATE (p:Perturbation {id: $id, drop: $drop, distract: $distract, seed: $seed, hidden: $hidden, added: $added,
                        created_at: datetime()})
RETURN p.id AS id
