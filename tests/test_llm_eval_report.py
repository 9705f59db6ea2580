"""An evaluation with LLM agents shows, per method, how many questions failed and how many role
fallbacks the runs took, in the JSON, the terminal table and the HTML page (HTTP stub for the
faults, a real Neo4j for the graph)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from rich.console import Console

from kgtool.api import KnowledgeGraph
from kgtool.eval.qa import evaluate_qa
from kgtool.eval.report import rich_table
from kgtool.eval.report_html import render_report_html

SAMPLE = Path(__file__).resolve().parent.parent / "ingest" / "sample"
QUESTIONS = [
    {"id": "capital", "question": "What is the capital of the country of citizenship of the performer of Hey Jude?",
     "answers": ["Vancouver"]},
    {"id": "performer", "question": "Who performed Hey Jude?", "answers": ["Madonna"]},
]


@pytest.fixture
def qa_file(tmp_path) -> Path:
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in QUESTIONS) + "\n", encoding="utf-8")
    return path


def _graph(kg, stub_llm, tmp_path, fallback: str) -> KnowledgeGraph:
    settings = dataclasses.replace(kg.settings, home=tmp_path / "home", llm_base_url=stub_llm.base_url,
                                   llm_model="stub-model", llm_api_key="stub-key", llm_timeout=5.0,
                                   llm_max_retries=1, llm_fallback=fallback)
    graph = KnowledgeGraph(kg.db, settings)
    graph.llm_client.backoff_base = 0.01
    return graph


def _table_text(data: dict, *, wide: bool = False) -> str:
    console = Console(record=True, width=400)
    console.print(rich_table(data, wide=wide))
    return console.export_text()


def test_fallbacks_and_failures_are_counted_per_method(sample_kg, stub_llm, qa_file, tmp_path):
    stub_llm.default = "I am not able to produce JSON."  # every role of every method, every time
    graph = _graph(sample_kg, stub_llm, tmp_path, "offline")
    data = evaluate_qa(graph, qa_file, format="jsonl", methods="care,vog", agents="llm", workers=1).as_dict()

    for name in ("care", "vog"):
        summary = data["methods"][name]
        assert summary["failed"] == 0 and "failed" not in summary["status"]
        # every question's run fell back at least once, and the per-question counts are its Run's
        assert summary["fallback_questions"] == 2 and summary["fallbacks"] >= 2
        assert summary["reasks"] == summary["fallbacks"] and summary["unusable_replies"] == 2 * summary["fallbacks"]
        for result in summary["results"]:
            _, rows = graph.query("MATCH (r:Run {id: $id}) RETURN r.llm_role_fallbacks AS n", {"id": result["run_id"]})
            assert result["role_fallbacks"] == rows[0]["n"] >= 1

    care = data["methods"]["care"]
    text = _table_text(data)
    assert "failed" in text and "fallbacks" in text and f"{care['fallbacks']} in 2 q" in text
    page = render_report_html(data)
    assert "<th>failed</th><th>fallbacks</th>" in page and f"<td>{care['fallbacks']} in 2 q</td>" in page


def test_without_fallback_every_question_is_counted_failed(sample_kg, stub_llm, qa_file, tmp_path):
    stub_llm.default = "no JSON here"
    graph = _graph(sample_kg, stub_llm, tmp_path, "none")
    data = evaluate_qa(graph, qa_file, format="jsonl", methods="care", agents="llm", workers=1).as_dict()

    care = data["methods"]["care"]
    assert care["failed"] == care["status"]["failed"] == 2 and care["fallbacks"] == 0
    row = next(line for line in _table_text(data, wide=True).splitlines() if line.strip("│ ").startswith("care"))
    assert "failed 2" in row  # the status mix (a wide column) agrees with the failed column
    assert '<td>2</td><td>0</td><td>failed 2</td>' in render_report_html(data)
