"""One reading of a question, shared by everything that needs to know what the question says.

`read(question, graph_view)` reads the question's words once: what it asks for (the answer form and
kind, the asking word, the noun it asks by; kgtool.reason.reading.form) and, per topic mention, its
relation phrases nearest-first with the role each gives the answer (kgtool.reason.question,
kgtool.reason.roles), computed when first asked for and kept. With a graph view it also names the
entities the question mentions, read through the view when first asked for.

A run reads its question once and carries the analysis on its context (`RunContext.analysis`). Roles
and helpers that are handed a string, not the context (a role gets a RoleEnv; a reader is asked the
question or a rephrasing of it), take `analysed(text)`: the process's memo of readings, which the run's
own reading fills first. What a question's words say depends on nothing but the words (and WordNet,
loaded once per process), so one reading serves every graph; the graph's part is bound per run.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from kgtool.reason.question import QuestionReading, Segment, read_question
from kgtool.reason.reading.form import AnswerForm, answer_form, asking_word
from kgtool.reason.roles import PhraseRole, segment_role

Span = tuple[int, int]


@dataclass(frozen=True)
class Phrase:
    """One relation phrase of the question, and the role it gives the answer (doer, done-to, adverbial)."""

    segment: Segment
    role: PhraseRole


@dataclass(frozen=True)
class QuestionAnalysis:
    """What one question says, read once. Per-topic parts are keyed by the topic mention's character span."""

    text: str
    wh: str  # the word the form is read from: "who", "which", "how", a yes/no question's auxiliary, or ""
    form: AnswerForm
    graph: Any = field(default=None, compare=False, repr=False)  # the graph view mentions are read through
    _readings: dict = field(default_factory=dict, compare=False, repr=False)  # span -> QuestionReading
    _phrases: dict = field(default_factory=dict, compare=False, repr=False)  # span -> tuple[Phrase, ...]
    _linked: dict = field(default_factory=dict, compare=False, repr=False)  # the graph's mentions, once read

    @property
    def kind(self) -> str:
        """yesno | choice | date | year | number | person | place | entity (AnswerForm.kind)."""
        return self.form.kind

    @property
    def noun(self) -> str:
        """The noun the question asks its answer by ("what county" -> "county"), or ""."""
        return self.form.noun

    def reading(self, topic: Span) -> QuestionReading:
        """The relation phrases around the topic mention at `topic`, nearest first, and the answer type
        the question word gives (`QuestionReading.answer_type`: the kind kgtool.reason.answer_kind checks)."""
        topic = (int(topic[0]), int(topic[1]))
        found = self._readings.get(topic)
        if found is None:
            found = self._readings.setdefault(topic, read_question(self.text, topic))
        return found

    def answer_type(self, topic: Span) -> str | None:
        return self.reading(topic).answer_type

    def phrases(self, topic: Span) -> tuple[Phrase, ...]:
        """The reading's phrases, each with the role it gives the answer (kgtool.reason.roles.segment_role)."""
        topic = (int(topic[0]), int(topic[1]))
        found = self._phrases.get(topic)
        if found is None:
            made = tuple(Phrase(seg, segment_role(seg, topic)) for seg in self.reading(topic).segments)
            found = self._phrases.setdefault(topic, made)
        return found

    @property
    def mentions(self) -> list | None:
        """The entities the question names, as the graph view links them ((start, end, entity id, surface),
        namesakes included); None for an analysis read without a graph."""
        if self.graph is None:
            return None
        if "mentions" not in self._linked:
            self._linked["mentions"] = list(self.graph.link_mentions(self.text))
        return self._linked["mentions"]

    def relation_candidates(self, topic: Span, candidates: Callable[[str], list]) -> dict[str, list]:
        """Per relation phrase around `topic` (its text), the relations `candidates` offers for it.

        Not computed while reading: which relations a phrase may name needs the graph's relation
        vocabulary and the embedder (kgtool.reason.explains scores phrases with both), a cost a reading
        must not pay for consumers that never ask. The caller passes its own candidate finder."""
        return {seg.text: candidates(seg.text) for seg in self.reading(topic).segments if seg.content}


def read(question: str, graph_view=None) -> QuestionAnalysis:
    """The question's words read once (the reading entry point: everything else looks the result up)."""
    form = answer_form(question)
    return QuestionAnalysis(question, asking_word(question, form), form, graph_view)


_MEMO: OrderedDict[str, QuestionAnalysis] = OrderedDict()
_LOCK = threading.Lock()
MEMO_SIZE = 2048  # texts kept: a run reads its question and a few dozen rephrasings and constraints of it


def analysed(question: str) -> QuestionAnalysis:
    """The reading of `question` without a graph, read on first use and remembered for the process."""
    with _LOCK:
        found = _MEMO.get(question)
        if found is not None:
            _MEMO.move_to_end(question)
            return found
    made = read(question)
    with _LOCK:
        found = _MEMO.setdefault(question, made)
        while len(_MEMO) > MEMO_SIZE:
            _MEMO.popitem(last=False)
    return found


def bound(question: str, graph_view) -> QuestionAnalysis:
    """The question's reading with this graph view for its mentions; its per-topic readings are the memo's
    own, so a run's context and the consumers that look the text up share one reading."""
    return replace(analysed(question), graph=graph_view, _linked={})


def forget() -> None:
    """Empty the memo (a test that counts readings starts from none)."""
    with _LOCK:
        _MEMO.clear()
