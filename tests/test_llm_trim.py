"""A prompt shortened to fit the model's context is recorded on the Step it led to: which role's prompt,
and how much it lost (HTTP stub for the model, a real Neo4j for the trace)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import env_for

from kgtool.api import KnowledgeGraph
from kgtool.cli import main

SAMPLE = Path(__file__).resolve().parent.parent / "ingest" / "sample"
QUESTION = "What is the capital of the country of citizenship of the performer of Hey Jude?"


def _graph(kg, stub_llm, tmp_path, context: int) -> KnowledgeGraph:
    settings = dataclasses.replace(kg.settings, home=tmp_path / "home", llm_base_url=stub_llm.base_url,
                                   llm_model="stub-model", llm_api_key="stub-key", llm_timeout=5.0,
                                   llm_max_retries=1, llm_context=context)
    graph = KnowledgeGraph(kg.db, settings)
    graph.llm_client.backoff_base = 0.01
    return graph


def _trims(kg, run_id: str) -> tuple[list[dict], int]:
    """Every trim on the run's steps in the stored trace (`kgtool trace show`), and the run's counter."""
    trace = kg.trace(run_id)
    trims = [json.loads(t) for step in trace["steps"] for t in step.get("prompt_trims") or []]
    return trims, int(trace["run"].get("llm_trimmed_prompts") or 0)


@pytest.mark.parametrize("method", ["care", "c2rag"])
def test_a_trimmed_prompt_is_recorded_on_the_step(sample_kg, neo4j_settings, stub_llm, tmp_path, method):
    stub_llm.default = "no JSON here"  # the offline roles do the steps; the prompts are still fitted first
    graph = _graph(sample_kg, stub_llm, tmp_path, context=1)  # room for the smallest task data only
    result = graph.answer(QUESTION, method=method, agents="llm")

    trims, counted = _trims(graph, result.run_id)
    assert trims, "no step carries the prompts trimmed before it"
    assert len(trims) == counted  # those after the last step are stored on it when the run closes
    for trim in trims:
        assert trim["role"] and trim["context"] == 1
        assert trim["chars_after"] < trim["chars_before"] and trim["tokens_after"] < trim["tokens_before"]
    # what was stored is what the model got: a first ask carries the trimmed task data as it is
    sent = {len(r.messages[-1]["content"]) for r in stub_llm.requests}
    assert {t["chars_after"] for t in trims} <= sent
    shown = CliRunner().invoke(main, ["trace", "show", result.run_id], env=env_for(neo4j_settings),
                               catch_exceptions=False)
    assert shown.exit_code == 0 and f"{trims[0]['role']} prompt trimmed to fit a 1-token context" in shown.output


def test_prompts_that_fit_leave_no_trim_on_the_steps(sample_kg, stub_llm, tmp_path):
    stub_llm.default = "no JSON here"
    graph = _graph(sample_kg, stub_llm, tmp_path, context=100_000)
    result = graph.answer(QUESTION, method="care", agents="llm")

    trims, counted = _trims(graph, result.run_id)
    assert trims == [] and counted == 0
