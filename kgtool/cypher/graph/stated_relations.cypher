// The relations some edit or fact file states a fact of (source 'edit' or 'base'); a relation
// only read from passages is not among them. One pass over the facts, read once per catalog.
// params: none
// returns: key
MATCH (f:Fact)
WHERE f.source IN ['edit', 'base']
RETURN DISTINCT f.relation_key AS key
