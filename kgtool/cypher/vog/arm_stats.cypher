// VoG: the bandit's statistics for one run, read back before every arm choice:
// per arm, how often it was chosen (N_c), its summed reward (R_c) and how often
// it was chosen among the last $window revisions (for the diversity penalty).
// params: $run_id, $window
// returns: arm, n, reward, recent
MATCH (:Run {id: $run_id})-[:HAS_REVISION]->(x:Revision)
WITH x ORDER BY x.seq DESC
WITH collect(x) AS revisions
UNWIND range(0, size(revisions) - 1) AS i
WITH revisions[i] AS x, i
RETURN x.arm AS arm, count(*) AS n, sum(x.reward) AS reward, sum(CASE WHEN i < $window THEN 1 ELSE 0 END) AS recent
ORDER BY arm
