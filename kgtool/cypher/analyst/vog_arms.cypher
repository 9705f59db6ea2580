// VoG (and its variants): how the revision bandit's arms fared per data set: how often each arm
// (local, lookahead, global) was chosen, its mean reward and verification gain,
// how many of its revisions were accepted, in how many runs. A run's data set is
// the ingest batch of the edits behind the facts its steps retrieved or its topic
// states (else the file that stated them, for fact-only graphs, else the run's
// scope); the perturbation is kept apart, so clean and perturbed answers are
// compared side by side.
// params: none
// returns: dataset, perturbation, method, arm, chosen, accepted, accept_rate, mean_reward, mean_gain, runs
MATCH (r:Run)
WHERE EXISTS { (r)-[:HAS_REVISION]->(:Revision) }
CALL (r) {
  OPTIONAL MATCH (r)-[:HAS_STEP]->(:Step)-[:CANDIDATE]->(seen:Fact)
  WITH r, collect(DISTINCT seen) AS seen
  // a run stuck at its first step retrieved nothing: its topic's facts still tell where it comes from
  OPTIONAL MATCH (r)-[:HAS_PLAN]->(p:Plan)
  OPTIONAL MATCH (t:Entity {id: p.topic_id})-[:SUBJECT_OF]->(near:Fact)
  WITH seen, collect(DISTINCT near) AS near
  WITH seen + near AS facts
  UNWIND CASE WHEN facts = [] THEN [null] ELSE facts END AS f
  OPTIONAL MATCH (e:Edit)-[:ASSERTS|SUPERSEDES]->(f)
  OPTIONAL MATCH (src)-[:STATES]->(f)
  WITH collect(DISTINCT e.batch) AS batches, collect(DISTINCT src.id) AS sources
  RETURN coalesce(head(batches), head(sources)) AS found
}
WITH coalesce(found, r.scope) AS dataset, coalesce(r.perturbation, '') AS perturbation, r.method AS method, r
MATCH (r)-[:HAS_REVISION]->(x:Revision)
RETURN dataset, perturbation, method, x.arm AS arm, count(x) AS chosen,
       sum(CASE WHEN x.accepted THEN 1 ELSE 0 END) AS accepted,
       round(toFloat(sum(CASE WHEN x.accepted THEN 1 ELSE 0 END)) / count(x), 3) AS accept_rate,
       round(avg(x.reward), 4) AS mean_reward, round(avg(x.gain), 4) AS mean_gain, count(DISTINCT r) AS runs
ORDER BY dataset, perturbation, method, arm
