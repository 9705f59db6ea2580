// Make the next sync compare every entity with its keys (run after ingestion: new
// aliases do not change the entity count). Only the count is cleared: the longest
// name length stays, or a sync that finds nothing stale would record 1 and
// multi-word names would stop linking.
// params: none
// returns: nothing
MATCH (m:LinkIndex {id: 'entity-names'})
SET m.entities = null
