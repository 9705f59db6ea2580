"""The values the layers exchange: candidate facts and passages, chain links,
agent judgements and verdicts, token usage, and the answer of a run."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

PLACEHOLDER = "[ENT]"


@runtime_checkable
class Embedder(Protocol):
    """Text to L2-normalised vectors, one row per text."""

    name: str

    @property
    def dim(self) -> int: ...

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


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
    stated: bool = True  # an edit or a fact file states it (False: only read from passages)

    kind = "fact"

    @property
    def id(self) -> str:
        return self.fact_id

    @property
    def text(self) -> str:
        return self.evidence

    def answer_from(self, entity_id: str) -> tuple[str, str]:
        """(id, name) of the entity this fact leads to from `entity_id`."""
        if self.direction == "in":
            return self.head_id, self.head
        return self.tail_id, self.tail

    def copy(self) -> "CandidateFact":
        return CandidateFact(**{**vars(self), "scores": dict(self.scores)})


@dataclass
class PassageHit:
    """A passage retrieved for a query (textual recovery, document QA)."""

    passage_id: str
    title: str
    text: str
    rank: int = 0
    score: float = 0.0
    scores: dict[str, float] = field(default_factory=dict)

    kind = "passage"

    @property
    def id(self) -> str:
        return self.passage_id

    @property
    def evidence(self) -> str:
        return self.text


@dataclass
class Judgement:
    """A selector's verdict on one candidate under CARE's four rules."""

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
    """One hop of an assembled chain, as a critic sees it."""

    hop: int
    subquestion: str
    entity_in: str  # the entity the hop starts from (name)
    fact: CandidateFact | None  # None when the hop was generated, not selected
    answer: str  # the entity the hop ends at (name)
    generated: bool = False
    evidence: str = ""


@dataclass
class Verdict:
    """A judge's decision on a chain or a step.

    `failed_hop` is 1-based; None when the chain is valid. `error_type` is a
    member of the judging method's taxonomy (kgtool.reason.taxonomy).
    """

    valid: bool
    failed_hop: int | None = None
    error_type: str | None = None
    explanation: str = ""
    guidance: str = ""


@dataclass
class Usage:
    """Tokens and calls spent; summed onto the Run."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_calls: int = 0
    # how the replies went: calls sent with a JSON schema, replies that could not be used,
    # re-asks, requests re-sent in a simpler output form, roles that fell back to the
    # offline agents, prompts shortened to fit the model's context; of the unusable replies, those
    # that were not JSON of the schema's shape at all (unparseable) rather than refused for their content
    structured_calls: int = 0
    unusable_replies: int = 0
    unparseable_replies: int = 0
    reasks: int = 0
    format_fallbacks: int = 0
    role_fallbacks: int = 0
    trimmed_prompts: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: "Usage") -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Answer:
    """What `KnowledgeGraph.answer` returns: the answer, its chain and what it cost."""

    question: str
    answer: str | None
    answer_id: str | None
    chain: list[dict]
    run_id: str
    method: str
    agents: str
    status: str
    latency_ms: float
    tokens: int = 0
    backtracks: int = 0
    plan: list[str] = field(default_factory=list)
    load_ms: float = 0.0
    error: str | None = None
    reason: str | None = None  # why the status is not `answered` (e.g. no entity of the question is in the graph)
    # 0-1 from the evidence the status rule read (kgtool.reason.abstain); None for a failed question
    confidence: float | None = None
    guess: str | None = None  # a `no_answer`'s best guess, kept from its chain (the answer is None)
    # what the confidence was weighed from (kgtool.reason.abstain.ConfidenceEvidence); None without an answer
    confidence_evidence: dict | None = None

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in (
            "question", "answer", "answer_id", "chain", "run_id", "method", "agents", "status", "reason",
            "confidence", "confidence_evidence", "guess", "latency_ms", "load_ms", "tokens", "backtracks", "plan", "error")}
