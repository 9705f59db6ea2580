"""SAFE's two roles backed by an OpenAI-compatible LLM (prompts in kgtool.reason.prompts.safe).

The generator sees the current entity's facts in force, numbered, and the
feedback on its rejected attempt; the fact it cites is mapped back to the
stored fact, and an entity it names is linked to the graph. The feedback model
sees the step as the graph stores it.
"""
from __future__ import annotations

from typing import Sequence

from kgtool.core.types import CandidateFact, Plan
from kgtool.models.llm import LLMClient
from kgtool.reason.agents.safe_base import ANSWER_MARK, Feedback, Proposal, StepTask, StepView
from kgtool.reason.prompts import safe as prompts


class LLMSafeGenerator:
    role = "safe_generator"

    def __init__(self, client: LLMClient, link):
        self.client = client
        self.link = link  # a name to an Entity id, or None

    def propose(self, task: StepTask) -> Proposal:
        answer_now = task.force or task.part >= task.parts
        spec = prompts.generator_prompt(task.question, task.subquestion, task.entity, task.pool, task.prefix,
                                        task.feedback, sorted(task.rejected), answer_now)
        step = self.client.ask(spec)
        if step.kind == "attribution" and step.fact_index is not None:
            fact = task.pool[step.fact_index]
            if task.entity_id is not None and fact.tail_id == task.entity_id and fact.head_id != task.entity_id:
                answer_id, answer = fact.head_id, fact.head
            else:
                answer_id, answer = fact.tail_id, fact.tail
            return Proposal("attribution", fact=fact, answer_id=answer_id, answer=answer, evidence=fact.evidence,
                            statement=step.statement)
        if step.kind == "attribution":
            return Proposal("attribution", statement=step.statement)
        statement = f"{ANSWER_MARK} {step.answer}" if step.kind == "final" else step.statement
        return Proposal(step.kind, answer_id=self.link(step.answer), answer=step.answer, statement=statement)


class LLMSafeFeedback:
    role = "safe_feedback"

    def __init__(self, client: LLMClient):
        self.client = client

    def judge(self, question: str, plan: Plan, prefix: Sequence[StepView], step: StepView,
              pool: Sequence[CandidateFact] = ()) -> Feedback:
        spec = prompts.feedback_prompt(question, plan.subquestions, prefix, step, pool)
        return self.client.ask(spec)


def llm_generator(env) -> LLMSafeGenerator:
    return LLMSafeGenerator(env.services.llm_client, env.link)


def llm_feedback(env) -> LLMSafeFeedback:
    return LLMSafeFeedback(env.services.llm_client)
