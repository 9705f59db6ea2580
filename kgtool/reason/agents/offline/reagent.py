"""ReAgent's roles without an LLM: the offline planner and selector, plus rules.

- decomposer: the offline planner's graph-guided plan; challenged, it plans
  again with the links read off passages in view (reagent_text) and offers the
  new plan only if it explains more of the question.
- retriever (text side): the links read off passages that name an entity, so
  a hop the graph lacks can rest on a sentence (the graph side is the shared
  hop retrieval, kgtool.reason.steps.retrieve_hop).
- verifier: the offline selector's four checks over graph facts and text links.
- answer assembler: the chain must be complete and connected, and the plan
  must account for the question's words, else it escalates.
- supervisor: of the conflicts found in the graph, the one whose culprit came
  last (roll back as little as possible: to the checkpoint just before it).
- controller: challenge once (more evidence), then override with the
  best-supported branch, else disclaim.
"""
from __future__ import annotations

from typing import Sequence

from kgtool.core.types import CandidateFact, ChainLink, Judgement, Plan
from kgtool.reason.agents.offline.common import Thresholds, same_name
from kgtool.reason.agents.offline.planner import OfflinePlanner
from kgtool.reason.agents.offline.reagent_text import TextAugmentedView, TextLinks
from kgtool.reason.agents.offline.selector import OfflineSelector
from kgtool.reason.agents.reagent_base import Assembly, Claim, Conflict, Decision, Intervention
from kgtool.reason.taxonomy import ReagentError
from kgtool.reason.offline_config import OFFLINE

# a challenged plan must explain this much more of the question to replace the current one
_BETTER = OFFLINE.replan_gain
# one question word no hop explains is usually phrasing ("holds", "located"); two or more
# name a relation the plan skipped
MINOR_LEFTOVER = 1


class TextEvidence:
    """The retriever's text side for one answer: passages read as one-hop links (see reagent_text).

    Only the `passages` best full-text hits per entity are read: every sentence of
    each is linked against the gazetteer, which is what a text hop costs."""

    def __init__(self, env, *, passages: int = 5):
        graph = env.graph  # the family's graph view, or one over the same session (the llm family has none)
        self.view = graph.view
        self.links = TextLinks(self.view, passages=passages, warm=env.services.matcher.encoder.encode)
        self.augmented = TextAugmentedView(self.view, self.links)

    def candidates(self, entity_id: str | None) -> list[CandidateFact]:
        return list(self.links.of(entity_id)) if entity_id else []


def text_evidence(env) -> TextEvidence:
    return TextEvidence(env)


class OfflineDecomposer:
    def __init__(self, env):
        self.env = env
        self.thresholds = Thresholds.from_settings(env.services.settings)

    def decompose(self, question: str) -> Plan:
        return self.env.agents.planner.plan(question)

    def challenge(self, question: str, plan: Plan, reason: str) -> Plan | None:
        """A plan found with text links in view, if it explains more of the question than `plan`."""
        text = self.env.role("reagent_text")
        planner = OfflinePlanner(text.augmented, self.env.services.matcher, thresholds=self.thresholds)
        new = planner.plan(question)
        old_score = getattr(plan, "score", float("-inf"))
        if not new.relations or new.score <= old_score + _BETTER:
            return None
        return new


class OfflineVerifier:
    """The offline selector, over a view that also knows the text links' relations."""

    def __init__(self, env):
        text = env.role("reagent_text")
        self.selector = OfflineSelector(text.augmented, env.services.matcher,
                                        thresholds=Thresholds.from_settings(env.services.settings))

    def verify(self, subquestion: str, entity: str, candidates: Sequence[CandidateFact], *, hints: dict,
               verified: Sequence[Claim] = ()) -> list[Judgement]:
        if not candidates:
            return []
        return self.selector.judge(subquestion, entity, candidates, **hints)


class OfflineAssembler:
    def assemble(self, question: str, links: Sequence[ChainLink], plan: Plan, *, complete: bool) -> Assembly:
        last = links[-1].answer if links else None
        if not links or not complete:
            hop = len(links) + 1
            return Assembly(None, f"nothing verifiable answers sub-question {hop}", ReagentError.UNSUPPORTED.value,
                            hop)
        for i, link in enumerate(links):
            if not link.answer:
                return Assembly(None, f"hop {link.hop} has no answer", ReagentError.UNSUPPORTED.value, link.hop)
            if i and not same_name(links[i - 1].answer, link.entity_in):
                return Assembly(last, f"hop {link.hop} starts from {link.entity_in!r}, not from "
                                      f"{links[i - 1].answer!r}", ReagentError.BROKEN_BRIDGE.value, link.hop)
        unexplained = list(getattr(plan, "unexplained", []) or [])
        if unexplained:
            return Assembly(last, f"the decomposition leaves {', '.join(unexplained)!s} unexplained",
                            ReagentError.INCOMPLETE_PLAN.value, None, minor=len(unexplained) <= MINOR_LEFTOVER)
        return Assembly(last, notes=[f"{len(links)} verified partial answers chained"])


class OfflineSupervisor:
    def decide(self, question: str, conflicts: Sequence[Conflict], claims: Sequence[Claim]) -> Decision:
        if not conflicts:
            return Decision(False, None, "no conflict among the accepted assertions")
        conflict = max(conflicts, key=lambda c: (c.culprit_t, c.kind))
        return Decision(True, conflict, f"{conflict.kind}: {conflict.detail}")


class OfflineController:
    def intervene(self, question: str, *, conflicts: int, reason: str, challenged: bool,
                  has_branch: bool) -> Intervention:
        if not challenged:
            return Intervention("challenge", "decomposer", f"{conflicts} conflicts; last: {reason}; ask for more "
                                                           "evidence")
        if has_branch:
            return Intervention("override", "assembler", "the challenge did not settle it; accept the "
                                                         "best-supported branch")
        return Intervention("disclaim", "assembler", "no branch was ever completed")


def decomposer(env) -> OfflineDecomposer:
    return OfflineDecomposer(env)


def verifier(env) -> OfflineVerifier:
    return OfflineVerifier(env)


def assembler(env) -> OfflineAssembler:
    return OfflineAssembler()


def supervisor(env) -> OfflineSupervisor:
    return OfflineSupervisor()


def controller(env) -> OfflineController:
    return OfflineController()
