"""A sixth method needs its module, its config, its registration and (optionally) a trace section, nothing else.

The method below lives in this test module: a greedy chain (the planner's
sub-questions, the selector's best candidate per hop, no critic) composed
from the shared steps, with a typed config and a trace section of its own.
It is registered on the graph's copy of the method registry and answers on a
real Neo4j through the same runner, trace, API and renderers as the five.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from kgtool.core.configs import PartConfig, setting
from kgtool.core.types import PLACEHOLDER
from kgtool.errors import ConfigError
from kgtool.eval.mquake import matches
from kgtool.reason import steps
from kgtool.reason.methods.base import Outcome
from kgtool.reason.trace_html import render_trace_html
from kgtool.reason.trace_sections import TraceSection, html_table

QUESTION = "What is the capital of the country of citizenship of the performer of Hey Jude?"
ANSWER = "Vancouver"  # in the bundled sample edits (ingest/sample/questions.jsonl)


@dataclass(frozen=True)
class GreedyConfig(PartConfig):
    """The greedy chain's settings."""

    top_k: int = setting(3, "candidate facts the selector scores per hop")
    gamma: float = setting(1.5, "N_eff threshold recorded with each hop")

    def check(self) -> None:
        if self.top_k < 1:
            raise ConfigError(f"greedy needs top_k >= 1, got {self.top_k}")


def _step_count_lines(rows: list[dict]) -> list[str]:
    return [f"greedy chain: {len(r['steps'])} steps recorded" for r in rows]


def _step_count_table(rows: list[dict]) -> str:
    return html_table("greedy", "Greedy chain", ("steps",),
                      [("data-greedy-run", r["run"]["id"], [len(r["steps"])]) for r in rows])


GREEDY_SECTION = TraceSection("greedy", "Greedy chain", "trace/show_run", _step_count_lines, _step_count_table)


class Greedy:
    """Greedy chain: each hop's best passing candidate, no critic."""

    taxonomy = None
    Config = GreedyConfig
    trace_sections = (GREEDY_SECTION,)

    def __init__(self, config: GreedyConfig | None = None, /, **settings):
        self.settings = GreedyConfig.of("greedy", config, settings)

    def config(self) -> dict:
        return self.settings.as_dict()

    def run(self, ctx, question: str) -> Outcome:
        plan = ctx.agents.planner.plan(question)
        if steps.link_topic(ctx, plan) is None:
            return Outcome([], "no_answer", 0, list(plan.subquestions))
        chain, pending = [], []
        for index, sub in enumerate(plan.subquestions):
            entity_id, entity = (chain[-1].answer_id, chain[-1].answer or "") if chain else (plan.topic_id, plan.topic or "")
            if index and not entity:
                break
            query = sub.replace(PLACEHOLDER, entity) if index else sub
            chain.append(steps.select_hop(ctx, pending, plan, index, query, entity_id, entity,
                                          chain[-1].step_id if chain else None, self.settings.top_k))
        links = steps.record_and_read_chain(ctx, pending, chain, chain)
        complete = len(chain) == len(plan.subquestions) and all(link.fact is not None for link in links)
        return Outcome(chain, "answered" if complete and chain[-1].answer else "unverified",
                       0, list(plan.subquestions))


def test_a_method_registered_in_a_test_answers_end_to_end_with_its_own_trace_section(sample_kg, capsys):
    kg = sample_kg
    kg.methods.register("greedy", Greedy, version="1")
    assert [s.name for s in kg.methods.settings("greedy")] == ["top_k", "gamma"]

    result = kg.answer(QUESTION, method="greedy", agents="offline")
    assert matches(result.answer, ANSWER, []), result.chain
    assert result.method == "greedy" and len(result.chain) == 3
    for a, b in zip(result.chain, result.chain[1:]):
        assert a["answer"] == b["entity"]  # the shared steps bound each hop to the last one's answer

    trace = kg.trace(result.run_id)
    assert json.loads(trace["run"]["config"]) == {"top_k": 3, "gamma": 1.5}  # its own defaults, stored
    assert [s["hop"] for s in trace["steps"] if s["in_chain"]] == [1, 2, 3]
    # its declared section was read with its named read and is shown by both renderers
    assert len(trace["greedy"]) == 1 and len(trace["greedy"][0]["steps"]) == 3
    assert 'data-greedy-run="' + result.run_id + '"' in render_trace_html(trace, kg.methods)

    from kgtool.cli.present.runs import print_trace

    print_trace(trace, kg.methods)
    assert "greedy chain: 3 steps recorded" in capsys.readouterr().out

    # another method's run shows no greedy section, and the built-in registry never saw the test's method
    care = kg.answer(QUESTION, method="care", agents="offline")
    assert "greedy" not in kg.trace(care.run_id)
    from kgtool.reason.methods import METHODS

    assert "greedy" not in METHODS
