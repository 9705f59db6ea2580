"""`kgtool eval qa` and `kgtool eval mquake` on graphs ingested in the test, against a real Neo4j."""
from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import kgtool.reason.methods as registered_methods
from kgtool.cli import main
from kgtool.reason.methods.care import Care
from helpers import env_for

SAMPLE = Path(__file__).resolve().parent.parent / "ingest" / "sample"

# Over the bundled sample graph, offline CARE answers the four sample questions right
# (tests/test_answer.py); the golds below make two of five questions wrong on purpose.
QUESTIONS = [
    {"id": "capital", "question": "What is the capital of the country of citizenship of the performer of Hey Jude?",
     "answers": ["Vancouver, BC"], "aliases": ["Vancouver"], "hop_answers": ["Madonna", "Canada", "Vancouver"]},
    {"id": "language", "question": "What is the official language of the country where the birthplace of the "
                                   "developer of Linux is located?", "answers": ["French"], "hops": 3},
    {"id": "founder", "question": "Who founded the employer of the author of The Hobbit?",
     "answers": ["Alfred the Great"], "hops": 3},
    # partial: the prediction "Keanu Reeves" shares 2 of these 3 tokens (P 1, R 2/3, F1 0.8)
    {"id": "spouse", "question": "Who is the spouse of the head of state of the country Madonna is a citizen of?",
     "answers": ["Keanu Charles Reeves"], "hops": 3},
    # the pre-edit answer: wrong after the edit
    {"id": "performer", "question": "Who performed Hey Jude?", "answers": ["The Beatles"], "hops": 1},
]


@pytest.fixture
def qa_file(tmp_path) -> Path:
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in QUESTIONS) + "\n", encoding="utf-8")
    return path


def test_eval_qa_jsonl_reports_em_f1_acc(sample_kg, neo4j_settings, qa_file, tmp_path):
    out, page = tmp_path / "report.json", tmp_path / "report.html"
    result = CliRunner(env={"COLUMNS": "250"}).invoke(
        main, ["eval", "qa", str(qa_file), "--format", "jsonl", "--method", "care", "--agents", "offline",
               "--workers", "2", "--json", str(out), "--html", str(page)],
        env=env_for(neo4j_settings), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    care = report["methods"]["care"]
    assert care["em"] == pytest.approx(0.6) and care["acc"] == pytest.approx(0.6)
    assert care["f1"] == pytest.approx((3 + 0.8) / 5)
    assert care["hop_acc"] == 1.0  # the one question with gold hops has the right chain
    assert care["by_hops"]["3"]["questions"] == 4 and care["by_hops"]["1"]["acc"] == 0.0
    by_id = {r["id"]: r for r in care["results"]}
    assert by_id["capital"]["em"] == 1.0 and by_id["capital"]["prediction"] == "Vancouver"
    assert by_id["spouse"]["em"] == 0.0 and by_id["spouse"]["f1"] == pytest.approx(0.8)
    assert by_id["performer"]["prediction"] == "Madonna" and by_id["performer"]["gold"] == ["The Beatles"]
    assert all(r["run_id"].startswith("run-") and r["latency_ms"] > 0 for r in care["results"])
    assert sum(care["status"].values()) == 5 and care["latency_ms"]["p90"] >= care["latency_ms"]["p50"] > 0
    # one method: its figures at top level too
    assert report["em"] == care["em"] and report["f1"] == care["f1"] and report["method"] == "care"
    assert report["perturbation"] is None and report["format"] == "jsonl"
    assert "care" in result.output and "0.600" in result.output and f"wrote {page}" in result.output
    assert 'id="chart-accuracy"' in page.read_text()


@pytest.fixture
def second_method(monkeypatch):
    """A second registered method for every KnowledgeGraph the CLI opens: CARE without backtracking."""
    methods = registered_methods.METHODS.copy()
    methods.register("care-no-backtrack", functools.partial(Care, tau_max=0))
    monkeypatch.setattr(registered_methods, "METHODS", methods)


def test_two_methods_one_row_each(sample_kg, neo4j_settings, qa_file, tmp_path, second_method):
    out = tmp_path / "report.json"
    result = CliRunner(env={"COLUMNS": "250"}).invoke(
        main, ["eval", "qa", str(qa_file), "--method", "care,care-no-backtrack", "--agents", "offline", "--json",
               str(out)],
        env=env_for(neo4j_settings), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert list(report["methods"]) == ["care", "care-no-backtrack"] and "acc" not in report
    rows = [line for line in result.output.splitlines() if line.lstrip("│┃| ").startswith("care")]
    assert len([r for r in rows if "0.600" in r]) == 2, result.output  # one table row per method
    runs = [{r["run_id"] for r in report["methods"][m]["results"]} for m in report["methods"]]
    assert len(runs[0]) == len(runs[1]) == 5 and not runs[0] & runs[1]  # each method answered every question
    assert report["methods"]["care-no-backtrack"]["backtracks_per_question"] == 0


def test_api_compares_methods_registered_on_the_graph(sample_kg, qa_file):
    kg = sample_kg
    kg.methods.register("care-no-backtrack", functools.partial(Care, tau_max=0))
    ticks = []
    report = kg.evaluate_qa(qa_file, methods="care,care-no-backtrack", agents="offline", workers=2, limit=2,
                            progress=lambda done, total, method: ticks.append((done, total, method)))
    data = report.as_dict()
    assert [r.method for r in report.runs] == ["care", "care-no-backtrack"]
    assert all(data["methods"][m]["questions"] == 2 for m in data["methods"])
    assert ticks[-1] == (4, 4, "care-no-backtrack") and (2, 4, "care") in ticks


def test_unknown_method_lists_the_registered_ones(sample_kg, neo4j_settings, qa_file):
    result = CliRunner().invoke(main, ["eval", "qa", str(qa_file), "--method", "care,nope"],
                                env=env_for(neo4j_settings), catch_exceptions=False)
    assert result.exit_code == 2
    output = " ".join(result.output.split())
    assert "unknown method(s) nope; registered:" in output and "care" in output


def test_bad_qa_line_stops_before_answering(sample_kg, neo4j_settings, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(QUESTIONS[0]) + "\n" + '{"id": "x", "question": "?"}\n')
    result = CliRunner().invoke(main, ["eval", "qa", str(path), "--method", "care"], env=env_for(neo4j_settings),
                                catch_exceptions=False)
    assert result.exit_code == 2 and "bad.jsonl:2: no gold answer" in " ".join(result.output.split())
    assert sample_kg.query("MATCH (r:Run) RETURN count(r) AS n")[1] == [{"n": 0}]


def test_eval_mquake_per_case_and_per_question(kg, mquake_dev, neo4j_settings, tmp_path):
    kg.ingest_edits(mquake_dev)
    out = tmp_path / "mquake.json"
    result = CliRunner().invoke(main, ["eval", "mquake", str(mquake_dev), "--scope", "1", "--limit", "2",
                                       "--method", "care", "--agents", "offline", "--json", str(out)],
                                env=env_for(neo4j_settings), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    care = report["methods"]["care"]
    assert care["cases"] == 2 and care["questions"] == 6 and len(care["results"]) == 6
    assert [c["question_ids"] for c in care["case_results"]] == [
        [f"{c['case_id']}:{i}" for i in range(3)] for c in care["case_results"]]
    for case in care["case_results"]:
        mine = [r for r in care["results"] if r["id"] in case["question_ids"]]
        assert case["correct"] == any(r["em"] == 1.0 for r in mine)  # MQuAKE: any of its questions
        assert case["hop_correct"] == any(r["hop_correct"] for r in mine)
    assert care["acc"] == sum(c["correct"] for c in care["case_results"]) / 2
    assert set(care["by_hops"]) == {"4"} and care["by_hops"]["4"]["cases"] == 2
    assert report["scope"] == "1" and report["kind"] == "mquake"
