"""What a registered method is: a control loop over a RunContext.

A method class takes its config as keyword arguments (the registry checks
them) and answers one question per `run` call, composing the shared steps of
kgtool.reason.steps. The runner opens the run, meters it and closes it, so a
method returns an Outcome and never touches the Run node itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from kgtool.core.types import Plan, Verdict
from kgtool.reason.context import HopState, RunContext


@dataclass
class Outcome:
    """A method's result for one question."""

    chain: list[HopState]
    status: str  # answered | unverified | no_answer
    backtracks: int = 0
    plan: list[str] = field(default_factory=list)
    # the verdict that ended the loop, written together with the run's outcome: (step id, verdict, round)
    final_verdict: tuple[str | None, Verdict, int] | None = None
    answer: str | None = None  # defaults to the chain's last answer
    answer_id: str | None = None
    # the plan of the whole question the chain followed, when it is not the one the agents' planner made
    # first (a replanned decomposition); the status rule reads what it leaves unexplained
    followed: Plan | None = None

    def __post_init__(self):
        if self.answer is None and self.chain:
            self.answer, self.answer_id = self.chain[-1].answer, self.chain[-1].answer_id


class Method(Protocol):
    """The registry's name is the method's name; `taxonomy` types its verdicts."""

    taxonomy: type[StrEnum] | None

    def config(self) -> dict:
        """The resolved settings of this method, stored on every Run."""
        ...

    def run(self, ctx: RunContext, question: str) -> Outcome: ...
