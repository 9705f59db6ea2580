"""CARE's agents backed by an OpenAI-compatible LLM.

Each agent renders its prompt from `kgtool.reason.prompts.care`, asks the
shared `LLMClient` for validated JSON, and returns the value the loop expects.
Several agents (and worker threads) may share one client; each agent's
`usage` is the client's running usage for that agent's role, so summing the
agents' usage gives the client's total without double counting.
"""
from __future__ import annotations

from typing import Sequence

from kgtool.config import Settings
from kgtool.core.types import CandidateFact, ChainLink, Judgement, Plan, Usage, Verdict
from kgtool.models.llm import LLMClient
from kgtool.reason.prompts import care
from kgtool.reason.prompts.spec import PromptSpec


class _LLMAgent:
    role: str = ""

    def __init__(self, client: LLMClient):
        self.client = client

    @classmethod
    def from_settings(cls, settings: Settings, **client_options) -> "_LLMAgent":
        return cls(LLMClient(settings, **client_options))

    @property
    def usage(self) -> Usage:
        return self.client.usage_for(self.role)

    def _ask(self, spec: PromptSpec):
        return self.client.ask(spec)


class LLMPlanner(_LLMAgent):
    role = "planner"

    def plan(self, question: str) -> Plan:
        return self._ask(care.planner_prompt(question))


class LLMSelector(_LLMAgent):
    role = "selector"

    def judge(self, subquestion: str, entity: str, candidates: Sequence[CandidateFact], *,
              relation_key: str | None = None, direction: str | None = None) -> list[Judgement]:
        # the plan's relation hints are for structural checkers; the LLM reads the sub-question
        if not candidates:
            return []
        judgements = self._ask(care.selector_prompt(subquestion, entity, candidates))
        return [_structural_check(fact, j) for fact, j in zip(candidates, judgements)]


def _structural_check(fact: CandidateFact, judgement: Judgement) -> Judgement:
    # A self-loop is a property of the graph, not a judgement call: enforce it
    # even when the model misses it.
    if fact.head_id and fact.head_id == fact.tail_id:
        judgement.not_self_loop = False
        judgement.score = 0.0
    return judgement


class LLMCritic(_LLMAgent):
    role = "critic"

    def review(self, question: str, chain: Sequence[ChainLink], answer: str, *,
               relations: Sequence[str] | None = None) -> Verdict:
        if not chain:
            return Verdict(valid=False, error_type="final_deduction", explanation="the chain has no steps")
        return self._ask(care.critic_prompt(question, chain, answer))


class LLMGenerator(_LLMAgent):
    role = "generator"

    def generate(self, subquestion: str, entity: str, evidence: Sequence[str]) -> str | None:
        evidence = [text for text in evidence if text and text.strip()]
        if not evidence:  # nothing to ground an answer in, so no call can help
            return None
        return self._ask(care.generator_prompt(subquestion, entity, evidence))


__all__ = ["LLMPlanner", "LLMSelector", "LLMCritic", "LLMGenerator"]
