// Delete documents (their passages are removed first by delete/passages).
// params: $document_ids
// returns: document_id
UNWIND $document_ids AS did
MATCH (d:Document {id: did})
DETACH DELETE d
RETURN did AS document_id
