// Entity merges by resolver and score band (kgtool resolve): how many, how sure, a few examples.
// Each merge is an (:EntityMerge) record; `kgtool resolve explain ID` shows one in full.
// params: none
// returns: resolver, score_band (the score rounded down to 0.05), merges, facts_moved, examples
MATCH (m:EntityMerge)
WITH m.resolver AS resolver, floor(m.score * 20) / 20.0 AS score_band, m
ORDER BY m.score DESC
WITH resolver, score_band, count(m) AS merges, sum(size(m.head_facts) + size(m.tail_facts)) AS facts_moved,
     collect(m.absorbed_name + ' -> ' + m.survivor_name + ' (' + m.survivor_id + ')')[..5] AS examples
RETURN resolver, score_band, merges, facts_moved, examples
ORDER BY resolver, score_band DESC
