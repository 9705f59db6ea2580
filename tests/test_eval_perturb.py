"""Perturbed views on a real Neo4j: hidden facts and distractors only under the perturbation,
stored facts untouched, removal restores everything, evaluations record it on their Runs."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgtool.cli import main
from kgtool.core.scope import Scope
from kgtool.errors import InputError
from kgtool.retrieve.hop import read_pools
from helpers import env_for

SAMPLE = Path(__file__).resolve().parent.parent / "ingest" / "sample"


def stored_facts(kg) -> list[dict]:
    """Every fact that is not a distractor, with all its properties and endpoints."""
    rows = kg.query("MATCH (h:Entity)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t:Entity) "
                    "WHERE f.source <> 'distractor' "
                    "RETURN f.id AS id, properties(f) AS props, h.id AS head, t.id AS tail ORDER BY id")[1]
    return rows


def perturbation_links(kg, pid: str, rel: str) -> list[dict]:
    return kg.query(f"MATCH (:Perturbation {{id: $pid}})-[:{rel}]->(f:Fact)<-[:SUBJECT_OF]-(h:Entity) "
                    "RETURN f.id AS id, h.id AS head, properties(f) AS props ORDER BY id", {"pid": pid})[1]


def pool_ids(kg, entity_id: str, scope: Scope) -> set[str]:
    pools, _ = read_pools(kg.db, None, [entity_id], scope)
    return {c.fact_id for c in pools[entity_id]}


def test_hidden_facts_and_distractors_only_under_the_perturbation(sample_kg):
    kg = sample_kg
    before = stored_facts(kg)
    active = [f for f in before if f["props"]["status"] == "active"]
    pid = kg.perturb(drop=0.3, distract=0.3, seed=11)
    hidden = perturbation_links(kg, pid, "HIDES")
    added = perturbation_links(kg, pid, "ADDS")
    assert len(hidden) == round(0.3 * len(active)) >= 2 and len(added) == round(0.3 * len(active))
    view = Scope().with_perturbation(pid)
    scoped_view = Scope(cases=("sample-1", "sample-2", "sample-3", "sample-4")).with_perturbation(pid)
    for fact in hidden:
        assert fact["id"] in pool_ids(kg, fact["head"], Scope())
        assert fact["id"] not in pool_ids(kg, fact["head"], view)
        assert fact["id"] not in pool_ids(kg, fact["head"], scoped_view)
    for fact in added:
        props = fact["props"]
        assert props["source"] == "distractor" and props["status"] == "perturbation" and props["perturbation"] == pid
        assert props["evidence"] and props["relation_key"]
        assert fact["id"] in pool_ids(kg, fact["head"], view)
        assert fact["id"] in pool_ids(kg, fact["head"], scoped_view)
        assert fact["id"] not in pool_ids(kg, fact["head"], Scope())  # null perturbation: as stored
        assert fact["id"] not in pool_ids(kg, fact["head"], Scope(cases=("sample-1",)))
    # facts neither hidden nor added stay in the pool under the view
    some = next(f for f in active if f["id"] not in {h["id"] for h in hidden})
    assert some["id"] in pool_ids(kg, some["head"], view)
    # the stored facts did not change at all
    assert stored_facts(kg) == before
    removed = kg.remove_perturbation(pid)
    assert removed == len(added)
    assert stored_facts(kg) == before
    assert kg.query("MATCH (n) WHERE n:Perturbation OR n.source = 'distractor' RETURN count(n) AS n")[1] == [{"n": 0}]
    for fact in hidden:
        assert fact["id"] in pool_ids(kg, fact["head"], view)  # nothing hides it any more
    with pytest.raises(InputError, match="no perturbation"):
        kg.remove_perturbation(pid)


def test_the_same_seed_draws_the_same_perturbation(sample_kg):
    kg = sample_kg
    first, second = kg.perturb(drop=0.2, distract=0.2, seed=3), kg.perturb(drop=0.2, distract=0.2, seed=3)
    other = kg.perturb(drop=0.2, distract=0.2, seed=4)

    def drawn(pid):
        hidden = [f["id"] for f in perturbation_links(kg, pid, "HIDES")]
        added = [(f["head"], f["props"]["relation_key"], f["props"]["evidence"])
                 for f in perturbation_links(kg, pid, "ADDS")]
        return hidden, sorted(added)

    assert drawn(first) == drawn(second) != drawn(other)
    # one perturbation's distractors are not seen under another
    d = perturbation_links(kg, first, "ADDS")[0]
    assert d["id"] not in pool_ids(kg, d["head"], Scope().with_perturbation(other))
    for pid in (first, second, other):
        kg.remove_perturbation(pid)


def questions_file(tmp_path: Path) -> Path:
    rows = [{"id": f"s{i}", "question": q["question"], "answers": [q["answer"]]}
            for i, q in enumerate(json.loads(line) for line in (SAMPLE / "questions.jsonl").read_text().splitlines())]
    path = tmp_path / "qa.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_eval_with_perturb_records_it_on_its_runs_and_removes_it(sample_kg, neo4j_settings, tmp_path):
    kg = sample_kg
    before = stored_facts(kg)
    out = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["eval", "qa", str(questions_file(tmp_path)), "--method", "care", "--agents",
                                       "offline", "--workers", "2", "--perturb", "drop=0.3,distract=0.3,seed=2",
                                       "--json", str(out)], env=env_for(neo4j_settings), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    pert = report["perturbation"]
    assert pert["id"].startswith("pert-") and pert["removed"] is True
    assert (pert["drop"], pert["distract"], pert["seed"]) == (0.3, 0.3, 2) and pert["hidden"] > 0
    assert f"perturbation {pert['id']}" in result.output and "removed" in result.output
    run_ids = [r["run_id"] for r in report["methods"]["care"]["results"]]
    runs = kg.query("MATCH (r:Run) WHERE r.id IN $ids RETURN r.perturbation AS p, r.scope AS scope",
                    {"ids": run_ids})[1]
    assert len(runs) == 4 and all(r["p"] == pert["id"] and pert["id"] in r["scope"] for r in runs)
    assert stored_facts(kg) == before
    assert kg.query("MATCH (p:Perturbation) RETURN count(p) AS n")[1] == [{"n": 0}]


def test_keep_perturbation_then_remove_it_from_the_cli(sample_kg, neo4j_settings, tmp_path):
    kg = sample_kg
    env = env_for(neo4j_settings)
    out = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["eval", "qa", str(questions_file(tmp_path)), "--method", "care", "--agents",
                                       "offline", "--limit", "1", "--perturb", "drop=0.5,seed=9",
                                       "--keep-perturbation", "--json", str(out)], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    pid = json.loads(out.read_text())["perturbation"]["id"]
    assert kg.query("MATCH (p:Perturbation {id: $id}) RETURN p.drop AS drop", {"id": pid})[1] == [{"drop": 0.5}]
    removed = CliRunner().invoke(main, ["eval", "remove-perturbation", pid], env=env, catch_exceptions=False)
    assert removed.exit_code == 0 and f"removed perturbation {pid}" in removed.output
    assert kg.query("MATCH (p:Perturbation) RETURN count(p) AS n")[1] == [{"n": 0}]
    again = CliRunner().invoke(main, ["eval", "remove-perturbation", pid], env=env, catch_exceptions=False)
    assert again.exit_code == 2 and "no perturbation" in again.output


def test_bad_perturb_option_is_a_usage_error(neo4j_settings, tmp_path):
    result = CliRunner().invoke(main, ["eval", "qa", str(questions_file(tmp_path)), "--perturb", "drop=1.5"],
                                env=env_for(neo4j_settings))
    assert result.exit_code == 2 and "between 0 and 1" in result.output
