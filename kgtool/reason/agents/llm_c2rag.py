"""C2RAG's roles backed by an OpenAI-compatible LLM (prompts in kgtool.reason.prompts.c2rag).

They share the graph's LLM client, so the runner's per-run meter counts their
tokens with the rest of the run.
"""
from __future__ import annotations

from collections.abc import Sequence

from kgtool.core.types import PassageHit
from kgtool.reason.agents.c2rag_base import Block, Constraint, ConstraintPlan
from kgtool.reason.prompts import c2rag as prompts


def _ask(client, spec):
    return client.ask(spec)


class LLMConstraintPlanner:
    def __init__(self, env):
        self.client = env.services.llm_client

    def plan(self, question: str, variants: int = 3) -> ConstraintPlan:
        return _ask(self.client, prompts.planner_prompt(question, variants))


class LLMReader:
    def __init__(self, env):
        self.client = env.services.llm_client

    def recover(self, question: str, constraint: Constraint, constraint_text: str, known: Sequence[str],
                passages: Sequence[PassageHit]) -> tuple[str | None, str | None]:
        if not passages:  # nothing to read, so no call can help
            return None, None
        return _ask(self.client, prompts.recovery_prompt(question, constraint_text, known, passages))

    def answer(self, question: str, blocks: Sequence[Block], target_binding: str | None) -> str | None:
        if not blocks:
            return target_binding
        return _ask(self.client, prompts.answer_prompt(question, blocks)) or target_binding
