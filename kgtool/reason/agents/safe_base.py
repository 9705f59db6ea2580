"""What SAFE's two roles exchange: a generator proposes one atomic step, a
feedback model judges it with one type of the SafeError taxonomy.

Both families (offline and llm) implement the two roles over these values, so
any feedback model can judge any generator. A step is judged as the graph
stores it (read back after it is written), never as the generator meant it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Sequence

from kgtool.core.types import PLACEHOLDER, CandidateFact, Plan
from kgtool.reason.taxonomy import SafeError

STEP_KINDS = ("attribution", "logical", "final")
ANSWER_MARK = "####ANSWER:"


@dataclass
class StepView:
    """One step of a trajectory as stored: what it cites and where it goes.

    attribution: cites one fact (`fact`), or none and no answer ("nothing found");
    logical: infers `answer` from `entity` without a cited fact;
    final: submits `answer` as the answer to the question.
    """

    step_id: str
    kind: str
    hop: int
    query: str
    entity_id: str | None
    entity: str
    answer_id: str | None
    answer: str | None
    fact: CandidateFact | None = None
    evidence: str = ""
    generated: bool = False
    attempt: int = 0
    neff: float | None = None  # of the step's candidate facts, as stored
    state: str = ""

    def statement(self) -> str:
        """The step in words, as a reasoning trace would show it."""
        if self.kind == "final":
            return f"{ANSWER_MARK} {self.answer or ''}".strip()
        if self.fact is not None:
            return f"{self.fact.head} -- {self.fact.relation} --> {self.fact.tail} (cites: {self.evidence!r})"
        if self.answer is None:
            return f"no fact answers {self.query!r} for {self.entity!r}"
        return f"from {self.entity!r} infer {self.answer!r} for {self.query!r}"


@dataclass
class Proposal:
    """A generator's next step (not yet stored).

    `judged` optionally carries the generator's own score and pass flag per pool
    candidate (fact id -> (score, passes)); they become the stored candidates'
    scores, from which N_eff is computed.
    """

    kind: str
    fact: CandidateFact | None = None
    answer_id: str | None = None
    answer: str | None = None
    evidence: str = ""
    statement: str = ""
    judged: dict[str, tuple[float, bool]] = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in STEP_KINDS:
            raise ValueError(f"step kind {self.kind!r} is not one of {STEP_KINDS}")


@dataclass
class Feedback:
    """A feedback model's judgement of one step: its type, why, and what to do next.

    `force_answer`: the guidance is to give the final answer now.
    `suggested_fact_id`: a fact in force the verifier found for this step's part
    (the guidance names it; an offline generator may cite it).
    """

    error_type: SafeError
    diagnosis: str
    guidance: str
    force_answer: bool = False
    suggested_fact_id: str | None = None

    @property
    def correct(self) -> bool:
        return self.error_type == SafeError.CORRECT

    def as_text(self) -> str:
        return f"{self.error_type.value}: {self.diagnosis} | guidance: {self.guidance}"


@dataclass
class StepTask:
    """What the generator is asked for: the next step after `prefix` (the steps kept so far)."""

    question: str
    plan: Plan
    part: int  # index of the question part the next step should answer
    subquestion: str  # that part's sub-question about the current entity
    entity_id: str | None
    entity: str
    pool: list[CandidateFact]  # the current entity's facts in force, ranked
    prefix: list[StepView]
    feedback: Feedback | None = None  # the judgement of the rejected attempt this one retries
    rejected: set[str] = field(default_factory=set)  # fact ids the feedback rejected in this run
    force: bool = False  # the final answer is due now

    @property
    def parts(self) -> int:
        return len(self.plan.subquestions)


class SafeGenerator(Protocol):
    def propose(self, task: StepTask) -> Proposal: ...


class SafeFeedback(Protocol):
    def judge(self, question: str, plan: Plan, prefix: Sequence[StepView], step: StepView,
              pool: Sequence[CandidateFact]) -> Feedback: ...


def part_question(plan: Plan, part: int, entity: str) -> str:
    """The sub-question of `part` about `entity` (the placeholder filled)."""
    if part >= len(plan.subquestions):
        return ""
    text = plan.subquestions[part]
    return text.replace(PLACEHOLDER, entity) if part else text


def start_of(step: StepView) -> tuple[str | None, str]:
    """(id, name) of the entity the step's cited fact starts from: the end that is not its answer."""
    fact = step.fact
    if fact is None:
        return step.entity_id, step.entity
    if step.answer_id == fact.tail_id and fact.head_id != fact.tail_id:
        return fact.head_id, fact.head
    if step.answer_id == fact.head_id:
        return fact.tail_id, fact.tail
    return (fact.head_id, fact.head) if fact.direction == "out" else (fact.tail_id, fact.tail)
