// Error-type histogram per method and dataset: how many verdicts of each type
// every method's judge gave (SAFE's feedback types, CARE's critic checks, ...),
// counting every judged step, retries included. `correct` verdicts are counted
// too, so the share of rejected steps reads off one table.
// The dataset is the batch (file) of the edits whose facts the run's steps chose or
// weighed, or the file of the documents they were read from; `perturbed` tells runs that
// answered on a perturbed view (eval --perturb) from the others.
// params: none
// returns: method, dataset, perturbed, taxonomy, error_type, verdicts, runs
MATCH (r:Run)-[:HAS_VERDICT]->(v:Verdict)
WHERE v.error_type IS NOT NULL
CALL (r) {
  OPTIONAL MATCH (r)-[:HAS_STEP]->(:Step)-[:CHOSE|CANDIDATE]->(f:Fact)
  OPTIONAL MATCH (ed:Edit)-[:ASSERTS|SUPERSEDES]->(f)
  WITH coalesce(r.dataset, ed.batch,
                CASE WHEN f.source IN ['base', 'edit', 'distractor', 'perturbation'] THEN null ELSE f.source END) AS d
  WITH d, count(*) AS n
  ORDER BY d IS NULL, n DESC
  LIMIT 1
  RETURN coalesce(last(split(d, '/')), 'unknown') AS dataset
}
RETURN r.method AS method, dataset, r.perturbation IS NOT NULL AS perturbed, v.taxonomy AS taxonomy,
       v.error_type AS error_type, count(v) AS verdicts, count(DISTINCT r) AS runs
ORDER BY method, dataset, perturbed, verdicts DESC, error_type
