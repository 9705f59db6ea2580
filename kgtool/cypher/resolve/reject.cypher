// Remember that a person undid the merge of two entities: later passes (an ingest's or
// `kgtool resolve`) never join them again (resolve/rejections). Kept by entity ids, so a file
// ingested again after the undo meets it; `kgtool resolve accept` of the pair takes it back.
// params: $rows (list of {a_id, b_id, a_name, b_name, merge_id}; a_id < b_id)
// returns: rejected
UNWIND $rows AS row
MERGE (x:MergeRejection {a_id: row.a_id, b_id: row.b_id})
SET x.a_name = row.a_name, x.b_name = row.b_name, x.merge_id = row.merge_id, x.at = datetime()
RETURN count(x) AS rejected
