"""CARE: planner -> selector per hop -> critic with bounded backtracking.

The protocol of the CARE paper (section 3.4): the planner splits the question
into sub-questions chained by an [ENT] placeholder; for each hop the selector
ranks the top-K facts (BM25 over evidence) of the current entity's 1-hop
neighbourhood under four rules; the critic audits the assembled chain and, on
a failure at hop i, the loop backtracks there (at most tau_max times):
reselect the next-best stored candidate, or, when the pool is exhausted,
generate the hop from local evidence, then redo the hops after it.

A critic round's hops are recorded in one statement, which also reads the
chain the critic judges back from the database.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kgtool.core.configs import PartConfig, setting
from kgtool.errors import ConfigError

from kgtool.core.types import PLACEHOLDER, ChainLink, Plan
from kgtool.reason import steps
from kgtool.reason.context import HopState, RunContext
from kgtool.reason.methods.base import Outcome
from kgtool.reason.taxonomy import CareError


@dataclass(frozen=True)
class CareConfig(PartConfig):
    """CARE's settings; defaults from the paper (section 3.4 and its experimental setup)."""

    GLOBALS: ClassVar[dict[str, str]] = {"top_k": "top_k", "tau_max": "tau_max", "gamma": "gamma"}

    top_k: int = setting(3, "K: candidate facts of the current entity the selector scores per hop (paper: 3)")
    tau_max: int = setting(2, "most critic-triggered backtracks per question before the chain is accepted (paper: 2)")
    gamma: float = setting(1.5, "N_eff threshold recorded with each hop: resolved iff N_eff <= gamma")

    def check(self) -> None:
        if self.top_k < 1 or self.tau_max < 0:
            raise ConfigError(f"care needs top_k >= 1 and tau_max >= 0, got {self.top_k} and {self.tau_max}")


class Care:
    """CARE: planner, selector over the top-K of each hop, critic with up to tau_max backtracks."""

    taxonomy = CareError

    Config = CareConfig

    def __init__(self, config: CareConfig | None = None, /, **settings):
        self.settings = CareConfig.of("care", config, settings)
        self.top_k = self.settings.top_k
        self.tau_max = self.settings.tau_max
        self.gamma = self.settings.gamma

    def config(self) -> dict:
        return self.settings.as_dict()

    def run(self, ctx: RunContext, question: str) -> Outcome:
        plan = ctx.agents.planner.plan(question)
        if steps.link_topic(ctx, plan) is None:
            # nothing to start from: no hop, no critic round on an empty chain; the runner says why
            return Outcome([], "no_answer", 0, list(plan.subquestions))
        chain, links = self._forward(ctx, plan, [], 0) if plan.subquestions else ([], [])
        backtracks, round_ = 0, 0
        while True:
            round_ += 1
            verdict = ctx.agents.critic.review(question, links, chain[-1].answer or "" if chain else "",
                                               relations=plan.relations or None)
            failed = verdict.failed_hop
            failed_step = chain[failed - 1].step_id if failed and 0 < failed <= len(chain) else (
                chain[-1].step_id if chain else None)
            if verdict.valid or backtracks >= self.tau_max or not failed or failed > len(chain):
                break  # this verdict is written by the runner, with the run's outcome
            ctx.trace.verdict(failed_step, verdict, round_)
            backtracks += 1
            i = failed - 1
            revised = steps.reselect(ctx, chain[i], chain_end_step_id=chain[-1].step_id,
                                     prev_step_id=chain[i - 1].step_id if i else None,
                                     reason=f"{verdict.error_type or 'rejected'}: {verdict.explanation}")
            chain, links = self._forward(ctx, plan, chain[:i] + [revised], i + 1)
        answer = chain[-1].answer if chain else None
        status = "answered" if verdict.valid and answer else ("unverified" if answer else "no_answer")
        return Outcome(chain, status, backtracks, list(plan.subquestions), final_verdict=(failed_step, verdict, round_))

    def _forward(self, ctx: RunContext, plan: Plan, chain: list[HopState],
                 start: int) -> tuple[list[HopState], list[ChainLink]]:
        """Run hops start.. of the plan after `chain`, record them and read the whole chain back, in one statement."""
        first_new = len(chain)
        pending: list[dict] = []
        for index in range(start, len(plan.subquestions)):
            if index == 0:
                entity_id, entity = plan.topic_id, plan.topic or ""
            else:
                entity_id, entity = chain[-1].answer_id, chain[-1].answer or ""
            if index and not entity:
                break  # a dead end: nothing to continue from
            query = plan.subquestions[index].replace(PLACEHOLDER, entity) if index else plan.subquestions[0]
            prev = chain[-1].step_id if chain else None
            chain.append(steps.select_hop(ctx, pending, plan, index, query, entity_id, entity, prev, self.top_k))
        return chain, steps.record_and_read_chain(ctx, pending, chain[first_new:], chain)
