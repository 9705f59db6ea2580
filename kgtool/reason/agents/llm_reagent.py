"""ReAgent's roles backed by an OpenAI-compatible LLM (prompts: kgtool.reason.prompts.reagent).

Each role renders its prompt, asks the shared client for validated JSON
(`chat_json`, metered per role) and returns what the ReAgent loop expects.
What needs no judgement stays structural, as in the offline roles: an
incomplete chain is escalated without a call, a supervisor with no conflict
to weigh is not asked, and a challenged decomposition that comes back
unchanged counts as no better one. The retriever's text side (passages read
as links) is the same for both families (offline.reagent:text_evidence).
"""
from __future__ import annotations

from typing import Sequence

from kgtool.core.types import CandidateFact, ChainLink, Judgement, Plan
from kgtool.reason.agents.reagent_base import Assembly, Claim, Conflict, Decision, Intervention
from kgtool.reason.prompts import reagent as prompts
from kgtool.reason.prompts.spec import PromptSpec
from kgtool.reason.taxonomy import ReagentError


class _Role:
    def __init__(self, env):
        self.client = env.services.llm_client

    def _ask(self, spec: PromptSpec):
        return self.client.ask(spec)


class LLMDecomposer(_Role):
    def decompose(self, question: str) -> Plan:
        return self._ask(prompts.decomposer_prompt(question))

    def challenge(self, question: str, plan: Plan, reason: str) -> Plan | None:
        new = self._ask(prompts.decomposer_prompt(question, plan, reason))
        same = [s.casefold() for s in new.subquestions] == [s.casefold() for s in plan.subquestions]
        return None if same else new


class LLMVerifier(_Role):
    def verify(self, subquestion: str, entity: str, candidates: Sequence[CandidateFact], *, hints: dict,
               verified: Sequence[Claim] = ()) -> list[Judgement]:
        # the plan's relation hints are for structural checkers; the LLM reads the sub-question
        if not candidates:
            return []
        facts = [c.text for c in verified if c.kind == "fact" and c.status == "accepted"]
        judgements = self._ask(prompts.verifier_prompt(subquestion, entity, candidates, facts))
        for fact, judgement in zip(candidates, judgements):
            if fact.head_id and fact.head_id == fact.tail_id:  # a self-loop answers nothing, whatever the model says
                judgement.not_self_loop, judgement.score = False, 0.0
        return judgements


class LLMAssembler(_Role):
    def assemble(self, question: str, links: Sequence[ChainLink], plan: Plan, *, complete: bool) -> Assembly:
        if not links or not complete or not all(link.answer for link in links):
            hop = next((link.hop for link in links if not link.answer), len(links) + 1)
            return Assembly(None, f"nothing verifiable answers sub-question {hop}", ReagentError.UNSUPPORTED.value,
                            hop)
        return self._ask(prompts.assembler_prompt(question, links))


class LLMSupervisor(_Role):
    def decide(self, question: str, conflicts: Sequence[Conflict], claims: Sequence[Claim]) -> Decision:
        if not conflicts:
            return Decision(False, None, "no conflict among the accepted assertions")
        return self._ask(prompts.supervisor_prompt(question, conflicts, claims))


class LLMController(_Role):
    def intervene(self, question: str, *, conflicts: int, reason: str, challenged: bool,
                  has_branch: bool) -> Intervention:
        return self._ask(prompts.controller_prompt(question, conflicts=conflicts, reason=reason,
                                                   challenged=challenged, has_branch=has_branch))


def decomposer(env) -> LLMDecomposer:
    return LLMDecomposer(env)


def verifier(env) -> LLMVerifier:
    return LLMVerifier(env)


def assembler(env) -> LLMAssembler:
    return LLMAssembler(env)


def supervisor(env) -> LLMSupervisor:
    return LLMSupervisor(env)


def controller(env) -> LLMController:
    return LLMController(env)
