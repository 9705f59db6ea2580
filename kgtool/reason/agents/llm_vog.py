"""VoG's roles backed by an OpenAI-compatible LLM (prompts in kgtool.reason.prompts.vog).

The plan agent drafts and revises plans, the retrieve agent keeps relations
and picks the fact that answers a step, the verify agent judges a step
against its facts. Scores that only rank (relation and entity scores before
the width cut) come from the registered `relation` scorer (embeddings), as
the paper ranks with sentence embeddings before the LLM prunes.
"""
from __future__ import annotations

from collections.abc import Sequence

from kgtool.core.types import CandidateFact, ChainLink
from kgtool.models.llm import LLMClient
from kgtool.reason.agents.offline.common import same_name
from kgtool.reason.agents.vog_base import (
    Check,
    Observation,
    PlanStep,
    RelationOption,
    RevisionContext,
    VogPlan,
)
from kgtool.reason.prompts import vog as prompts
from kgtool.reason.prompts.spec import PromptSpec
from kgtool.reason.taxonomy import VogError


class _Agent:
    def __init__(self, client: LLMClient):
        self.client = client

    def _ask(self, spec: PromptSpec):
        return self.client.ask(spec)


class LLMVogPlanner(_Agent):
    def plan(self, question: str) -> VogPlan:
        return self._ask(prompts.planner_prompt(question))


class LLMVogReviser(_Agent):
    def revise(self, context: RevisionContext) -> VogPlan:
        return self._ask(prompts.reviser_prompt(context))


class LLMVogRetriever(_Agent):
    """Embedding scores rank relations and entities; the LLM keeps relations and picks the fact."""

    def __init__(self, client: LLMClient, scorer):
        super().__init__(client)
        self.scorer = scorer

    def score_relations(self, question: str, step: PlanStep, query: str, entity: str,
                        options: Sequence[RelationOption]) -> list[float]:
        rows = [{"relation": o.label} for o in options]
        scores = self.scorer.score(query, rows)
        if step.relation:  # closeness to the planned relation counts as much as to the sub-question
            scores = [max(a, b) for a, b in zip(scores, self.scorer.score(step.relation, rows))]
        return [round(float(s), 6) for s in scores]

    def select_relations(self, question: str, step: PlanStep, query: str, entity: str,
                         options: Sequence[RelationOption]) -> list[RelationOption]:
        chosen = self._ask(prompts.relations_prompt(question, step, query, entity, options))
        return [options[k] for k in chosen]

    def score_entities(self, question: str, step: PlanStep, query: str, entity: str,
                       facts: Sequence[CandidateFact]) -> list[float]:
        out = []
        for fact in facts:
            _end_id, end = fact.answer_from("")
            predicted = 0.2 if step.expected and same_name(step.expected, end) else 0.0
            out.append(round(0.8 * fact.scores.get("relation", 0.0) + predicted, 6))
        return out

    def select_entity(self, question: str, step: PlanStep, query: str, entity: str,
                      candidates: Sequence[CandidateFact]) -> CandidateFact | None:
        k = self._ask(prompts.entity_prompt(question, step, query, entity, candidates))
        return None if k is None else candidates[k]


class LLMVogVerifier(_Agent):
    def verify(self, question: str, plan: VogPlan, index: int, link: ChainLink | None, observation: Observation,
               visited: Sequence[str]) -> Check:
        if link is None or link.fact is None or observation.chosen is None:
            # nothing to judge: no call can find a fact the graph does not hold
            return Check(False, 0.0, VogError.INCOMPLETE_EVIDENCE.value,
                         f"the graph holds no fact of {observation.entity or 'the topic'!r} for this step",
                         checks={"evidence": 0.0})
        fact = link.fact
        chosen = {"head": fact.head, "relation": fact.relation, "tail": fact.tail, "evidence": link.evidence}
        others = [{"head": c.head, "relation": c.relation, "tail": c.tail} for c in observation.candidates
                  if c.fact_id != fact.fact_id][:5]
        check = self._ask(prompts.verifier_prompt(question, plan, index, chosen, others))
        check.repeated = observation.end(observation.chosen)[0] in visited
        return check


# ------------------------------------------------------------------ factories (ROLES)
# Each receives the answer's RunContext; the shared client meters every call on the run.


def planner(env) -> LLMVogPlanner:
    return LLMVogPlanner(env.services.llm_client)


def retriever(env) -> LLMVogRetriever:
    services = env.services
    return LLMVogRetriever(services.llm_client, services.scorers.create("relation", services.embedder))


def verifier(env) -> LLMVogVerifier:
    return LLMVogVerifier(env.services.llm_client)


def reviser(env) -> LLMVogReviser:
    return LLMVogReviser(env.services.llm_client)
