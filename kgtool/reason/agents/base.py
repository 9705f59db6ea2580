"""The agent roles of the reasoning loops and the values they exchange.

Two families implement these interfaces: `llm` agents (an OpenAI-compatible
endpoint) and `offline` agents (no LLM: embeddings, lexical and structural
checks over the graph). The loops only see these interfaces, so both families
run the same loop and write the same traces.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Sequence

PLACEHOLDER = "[ENT]"


@dataclass
class Plan:
    """A question split into hop-wise sub-questions.

    The first sub-question names the topic entity; later ones hold the
    `[ENT]` placeholder for the previous hop's answer.
    """

    subquestions: list[str]
    topic: str | None = None  # surface form of the topic entity, when known
    topic_id: str | None = None  # Entity id when the planner linked it
    # optional per-hop hints from planners that chose relations (offline):
    # the relation key and direction ("out"/"in") each hop should follow
    relations: list[str] = field(default_factory=list)
    directions: list[str] = field(default_factory=list)

    def hop_hints(self, index: int) -> dict:
        """Keyword hints for the selector at hop `index` (empty when the plan has none)."""
        hints = {}
        if index < len(self.relations):
            hints["relation_key"] = self.relations[index]
        if index < len(self.directions):
            hints["direction"] = self.directions[index]
        return hints


@dataclass
class CandidateFact:
    """One fact in a hop's candidate pool (a row of the hop retrieval read)."""

    fact_id: str
    head_id: str
    head: str
    relation: str
    tail_id: str
    tail: str
    evidence: str
    relation_id: str | None = None
    direction: str = "out"  # "out": current entity is the head; "in": it is the tail
    rank: int = 0
    score: float = 0.0
    scores: dict[str, float] = field(default_factory=dict)  # per named scorer

    def answer_from(self, entity_id: str) -> tuple[str, str]:
        """(id, name) of the entity this fact leads to from `entity_id`."""
        if self.direction == "in":
            return self.head_id, self.head
        return self.tail_id, self.tail


@dataclass
class Judgement:
    """A selector's verdict on one candidate under the four rules."""

    fact_id: str
    score: float  # 0..1, higher is better
    entity_match: bool
    evidence_entails: bool
    relation_fits: bool
    not_self_loop: bool
    reason: str = ""

    @property
    def passes(self) -> bool:
        return self.entity_match and self.evidence_entails and self.relation_fits and self.not_self_loop


@dataclass
class ChainLink:
    """One hop of an assembled chain, as the critic sees it."""

    hop: int
    subquestion: str
    entity_in: str  # the entity the hop starts from (name)
    fact: CandidateFact | None  # None when the hop was generated, not selected
    answer: str  # the entity the hop ends at (name)
    generated: bool = False
    evidence: str = ""


@dataclass
class Verdict:
    """The critic's decision on a chain.

    `failed_hop` is 1-based; None when the chain is valid. `error_type` is one
    of: local_relevance, bridge_continuity, grounding, final_deduction.
    """

    valid: bool
    failed_hop: int | None = None
    error_type: str | None = None
    explanation: str = ""


@dataclass
class Usage:
    """Tokens and calls an agent spent; summed onto the Run."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_calls: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: "Usage") -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cached_calls += other.cached_calls


class Planner(Protocol):
    def plan(self, question: str) -> Plan: ...


class Selector(Protocol):
    def judge(self, subquestion: str, entity: str, candidates: Sequence[CandidateFact], *,
              relation_key: str | None = None, direction: str | None = None) -> list[Judgement]:
        """Score every candidate under the four rules (same order as given).

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
