"""SAFE's train-time filter (`kgtool verify-benchmark`): a question is kept only when a chain of
facts in force joins its entity to its gold answer within the hop limit."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgtool.cli import main
from kgtool.errors import ConfigError
from kgtool.eval.qa_data import read_qa
from helpers import env_for

SAMPLE = Path(__file__).resolve().parent.parent / "ingest" / "sample"

QUESTIONS = [
    {"id": "chain", "question": "What is the capital of the country of citizenship of the performer of Hey Jude?",
     "answers": ["Vancouver"], "hops": 3, "hop_answers": ["Madonna", "Canada", "Vancouver"]},
    {"id": "alias", "question": "Who performed Hey Jude?", "answers": ["Madonna Louise Ciccone"], "hops": 1},
    {"id": "absent-answer", "question": "Who performed Hey Jude?", "answers": ["Paul McCartney"]},
    {"id": "no-entity", "question": "Who wrote the most beautiful song ever?", "answers": ["Madonna"]},
    {"id": "disconnected", "question": "Which language is spoken where the performer of Hey Jude lives?",
     "answers": ["French"]},
]


@pytest.fixture
def questions(tmp_path) -> Path:
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    return path


def test_only_questions_with_a_grounded_path_are_kept(sample_kg, questions, tmp_path):
    result = sample_kg.verify_benchmark(questions, out=tmp_path / "kept.jsonl", summary=tmp_path / "summary.json")
    by_id = {c.id: c for c in result.checks}
    assert {k: c.reason for k, c in by_id.items()} == {
        "chain": "verifiable", "alias": "verifiable", "absent-answer": "answer_not_in_graph",
        "no-entity": "no_question_entity", "disconnected": "no_path"}
    assert by_id["chain"].hops == 3 and by_id["chain"].path[0] == "Hey Jude" and by_id["chain"].path[-1] == "Vancouver"
    assert result.total == 5 and result.verifiable == 2 and result.share_removed == pytest.approx(0.6)
    kept = read_qa(tmp_path / "kept.jsonl", "jsonl")
    assert [item.id for item in kept.items] == ["chain", "alias"]
    assert kept.items[0].hop_answers == (("Madonna",), ("Canada",), ("Vancouver",))
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["removed"] == 3 and summary["reasons"]["no_path"] == 1


def test_the_hop_limit_counts(sample_kg, questions, tmp_path):
    result = sample_kg.verify_benchmark(questions, max_hops=2, out=tmp_path / "k.jsonl", summary=tmp_path / "s.json")
    assert {c.id: c.verifiable for c in result.checks}["chain"] is False
    with pytest.raises(ConfigError, match="max_hops must be from 1 to 6"):
        sample_kg.verify_benchmark(questions, max_hops=9, out=tmp_path / "k.jsonl")


def test_verify_benchmark_command_prints_the_share_removed(sample_kg, questions, neo4j_settings, tmp_path):
    out = CliRunner().invoke(main, ["verify-benchmark", str(questions), "--format", "jsonl", "--out",
                                    str(tmp_path / "kept.jsonl"), "--summary", str(tmp_path / "s.json")],
                             env=env_for(neo4j_settings), catch_exceptions=False)
    assert out.exit_code == 0, out.output
    assert "60.0%" in out.output and "no_path" in out.output
    assert len((tmp_path / "kept.jsonl").read_text().splitlines()) == 2
