"""Plain records passed between the ingestion stages.

Readers produce EditRecord / BaseFact / Case / BadRecord, extractors produce
Candidate, EATR produces Decision. None of them know about the database, so
each stage can be tested and reused on its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class EditRecord:
    """One edit e = (s, r, o -> o*) with its natural-language description.

    `relation` is a human label ("founded by"); `object` is the new object o*;
    `old_object` the object it replaces, when known. `id` is stable across
    re-runs so that re-ingesting the same file is idempotent.
    """

    id: str
    subject: str
    relation: str
    object: str
    description: str
    relation_id: str | None = None
    old_object: str | None = None
    subject_id: str | None = None
    object_id: str | None = None
    old_object_id: str | None = None
    subject_aliases: tuple[str, ...] = ()
    object_aliases: tuple[str, ...] = ()
    case_id: str | None = None
    prompt: str | None = None
    question: str | None = None
    source: str = ""
    # aliases of the replaced object, so the superseded fact links to the same entity
    old_object_aliases: tuple[str, ...] = ()

    @property
    def anchor(self) -> tuple[str, str, str]:
        """The anchor triple (s, r, o*) used by EATR."""
        return (self.subject, self.relation, self.object)


@dataclass(frozen=True, slots=True)
class BaseFact:
    """A fact of the world before editing (MQuAKE: the original chain `orig.triples`)."""

    subject: str
    relation: str
    object: str
    relation_id: str | None = None
    subject_id: str | None = None
    object_id: str | None = None
    case_id: str | None = None
    source: str = ""
    subject_aliases: tuple[str, ...] = ()
    object_aliases: tuple[str, ...] = ()
    # the sentence that states the fact, when the source gives one (a facts file's evidence column)
    evidence: str | None = None
    # the object as a typed value (kgtool.ingest.literals.Literal), when it is one: stored as a
    # value of this fact, never as an entity another fact shares; `object` is then its text
    object_literal: Any = None


@dataclass(frozen=True, slots=True)
class GoldHop:
    """One hop of the gold post-edit chain of a case."""

    question: str
    answer: str
    aliases: tuple[str, ...] = ()
    cloze: str | None = None


@dataclass(frozen=True, slots=True)
class Case:
    """A multi-hop evaluation case: questions, the post-edit answer and its gold hops."""

    case_id: str
    questions: tuple[str, ...]
    new_answer: str
    new_answer_aliases: tuple[str, ...]
    hops: tuple[GoldHop, ...]
    edit_ids: tuple[str, ...]
    source: str = ""


@dataclass(frozen=True, slots=True)
class BadRecord:
    """An input record that was skipped; `source` is file:line or file:record."""

    source: str
    reason: str

    def __str__(self) -> str:
        return f"{self.source}: {self.reason}"


@dataclass(frozen=True, slots=True)
class Candidate:
    """A triple proposed by an extractor, with the sentence it came from."""

    head: str
    relation: str
    tail: str
    evidence: str
    extractor: str


@dataclass(frozen=True, slots=True)
class Decision:
    """EATR's verdict on one candidate of one edit.

    reason is one of: kept, head_mismatch, tail_mismatch, relation_inconsistent,
    no_eatr. `cosine` is the relation similarity (None when not computed, e.g.
    in no-EATR mode). head_id / tail_id are the canonical entity ids the
    candidate's endpoints resolved to, which the loader uses for kept facts.
    """

    edit_id: str
    candidate: Candidate
    kept: bool
    reason: str
    cosine: float | None
    head_id: str | None = None
    tail_id: str | None = None


@dataclass(slots=True)
class ReadResult:
    """Everything a reader got out of one file."""

    edits: list[EditRecord] = field(default_factory=list)
    base_facts: list[BaseFact] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    bad: list[BadRecord] = field(default_factory=list)
