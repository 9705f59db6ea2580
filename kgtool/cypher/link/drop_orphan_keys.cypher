// Remove name keys no entity has any more (their entities were deleted or renamed).
// params: none
// returns: dropped
MATCH (n:NameKey)
WHERE NOT EXISTS { (n)-[:NAMES]->() }
DELETE n
RETURN count(n) AS dropped
