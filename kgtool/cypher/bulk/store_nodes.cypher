// How many nodes the store holds (a bulk load replaces the store, so it must hold none).
// params: none
// returns: nodes
MATCH (n)
RETURN count(n) AS nodes
