"""Answer spans in passages, for readers that have no LLM.

A candidate is an entity the gazetteer links in a passage, the passage's own
title, or (when nothing links) a capitalised run of words, a year/date or a
number. `rank_spans` scores each candidate by how well the sentence it sits in
says what is asked (relation phrasings matched by the offline matcher), by
whether that sentence also names what is already known (the anchor), and by
the passage's own rank; names the question or the anchor already use are
never answers.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kgtool.core.text import normalize, words
from kgtool.core.types import PassageHit

_SENTENCE = re.compile(r"[^.!?]+(?:[.!?]+|$)")
_CAPS = re.compile(r"\b(?:[A-Z][\w'\-]*|of|the|de|von|van|and)(?:\s+(?:[A-Z][\w'\-]*|of|the|de|von|van|and))*")
_YEAR = re.compile(r"\b(?:\d{1,2}\s+)?(?:January|February|March|April|May|June|July|August|September|October|"
                   r"November|December)?\s*\d{3,4}\b")
_NUMBER = re.compile(r"\b\d[\d,.]*\b")
_GLUE = {"of", "the", "de", "von", "van", "and"}
_WHEN = {"when", "year", "date", "century", "decade"}
_HOW_MANY = ("how many", "how much", "number of", "population")


@dataclass
class Span:
    text: str
    passage_id: str
    score: float
    entity_id: str | None = None


def expected_kind(text: str) -> str:
    """'date', 'number' or 'entity': what kind of answer the question asks for."""
    low = f" {text.lower()} "
    if any(p in low for p in _HOW_MANY):
        return "number"
    if any(f" {w} " in low for w in _WHEN):
        return "date"
    return "entity"


def _sentences(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _SENTENCE.finditer(text or "") if m.group().strip()]


def _raw_spans(text: str, kind: str) -> list[tuple[int, int, str]]:
    if kind == "date":
        return [(m.start(), m.end(), m.group().strip()) for m in _YEAR.finditer(text)]
    if kind == "number":
        return [(m.start(), m.end(), m.group()) for m in _NUMBER.finditer(text)]
    out = []
    for m in _CAPS.finditer(text):
        tokens = m.group().split()
        while tokens and tokens[0] in _GLUE:
            tokens.pop(0)
        while tokens and tokens[-1] in _GLUE:
            tokens.pop()
        if tokens and any(t[0].isupper() for t in tokens):
            phrase = " ".join(tokens)
            start = text.find(phrase, m.start())
            out.append((start, start + len(phrase), phrase))
    return out


def rank_spans(passages: Sequence[PassageHit], *, asked: Sequence[str], known: Sequence[str], question: str,
               link_mentions=None, matcher=None, kind: str | None = None,
               weights: Sequence[float] | None = None) -> list[Span]:
    """Candidate answers in `passages`, best first.

    asked: phrasings of what is asked (relation variants or the question);
    known: names the answer must not be (the anchor, bound entities);
    link_mentions(text) -> [(start, end, entity_id, surface)]; matcher: the
    offline RelationMatcher (without one, word overlap measures the sentence).
    weights: one per passage (default 1/rank).
    """
    kind = kind or expected_kind(question)
    banned = {normalize(k) for k in known if k}
    question_words = set(words(question))
    known_words = {w for k in known for w in words(k)}
    asked_words = {w for a in asked for w in words(a)}
    prof = matcher.profile("asked:" + "|".join(asked), list(asked)) if matcher is not None and asked else None
    best: dict[str, Span] = {}
    for n, hit in enumerate(passages):
        weight = weights[n] if weights is not None else 1.0 / (n + 1)
        text = hit.text or ""
        mentions = list(link_mentions(text)) if link_mentions is not None and kind == "entity" else []
        spans = [(s, e, surface, eid) for s, e, eid, surface in mentions]
        if not spans:
            spans = [(s, e, surface, None) for s, e, surface in _raw_spans(text, kind)]
        for s0, e0 in _sentences(text):
            sentence = text[s0:e0]
            inside = [sp for sp in spans if sp[0] >= s0 and sp[1] <= e0]
            if not inside:
                continue
            sent_words = set(words(sentence))
            if prof is not None:
                said = matcher.expresses(matcher.analyse(sentence, whole=False), prof)
            else:
                said = len(asked_words & sent_words) / max(1, len(asked_words))
            anchored = len(known_words & sent_words) / max(1, len(known_words)) if known_words else 0.0
            overlap = len(question_words & sent_words) / max(1, len(question_words))
            for s, e, surface, eid in inside:
                key = normalize(surface)
                if not key or key in banned or set(words(surface)) <= question_words | known_words:
                    continue
                score = weight * (0.45 * said + 0.3 * anchored + 0.25 * overlap)
                if hit.title and normalize(hit.title) == key:
                    score *= 1.1  # the passage is about this entity
                if key not in best or score > best[key].score:
                    best[key] = Span(surface.strip(), hit.passage_id, score, eid)
    return sorted(best.values(), key=lambda sp: (-sp.score, sp.text))
