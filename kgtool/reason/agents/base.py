"""The agent roles the reasoning loops compose.

Two families implement these interfaces: `llm` agents (an OpenAI-compatible
endpoint) and `offline` agents (no LLM: embeddings, lexical and structural
checks over the graph). The loops only see these interfaces, so both families
run the same loops and write the same traces. The values they exchange live
in kgtool.core.types.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, Sequence

from kgtool.core.types import CandidateFact, ChainLink, Judgement, Plan, Usage, Verdict


class Planner(Protocol):
    def plan(self, question: str) -> Plan: ...


class Selector(Protocol):
    def judge(self, subquestion: str, entity: str, candidates: Sequence[CandidateFact], *,
              relation_key: str | None = None, direction: str | None = None) -> list[Judgement]:
        """Score every candidate under CARE's four rules (same order as given).

        relation_key/direction are the plan's hints for this hop, when it has them.
        """
        ...


class Critic(Protocol):
    def review(self, question: str, chain: Sequence[ChainLink], answer: str, *,
               relations: Sequence[str] | None = None) -> Verdict: ...


class Generator(Protocol):
    def generate(self, subquestion: str, entity: str, evidence: Sequence[str]) -> str | None:
        """Fallback answer for a hop, grounded only in the given local evidence; None if it cannot."""
        ...


@dataclass
class AgentSet:
    """The roles of one agent family, as a method sees them.

    `usage_source` is the object whose `tracking()` meters an answer's model
    calls (the shared LLM client), or None for agents that call no model;
    `view` is the offline agents' window on the graph, bound to the answer's
    session while it runs; `backup` holds the offline roles an LLM role falls
    back to when its replies stay unusable (kgtool.reason.agents.llm_fallback).
    """

    kind: str
    planner: Planner
    selector: Selector
    critic: Critic
    generator: Generator
    usage_source: Any = None
    view: Any = None
    backup: Any = None


__all__ = ["AgentSet", "Planner", "Selector", "Critic", "Generator", "CandidateFact", "ChainLink", "Judgement",
           "Plan", "Usage", "Verdict"]
