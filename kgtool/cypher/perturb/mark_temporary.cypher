// Mark a perturbation as made for one evaluation, to be removed when it ends, so one
// left behind by an interrupted evaluation can be found (`kgtool db doctor`).
// params: $id
// returns: id
MATCH (p:Perturbation {id: $id})
SET p.temporary = true
RETURN p.id AS id
