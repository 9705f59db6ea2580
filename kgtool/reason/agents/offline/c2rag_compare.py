"""Answers to comparison questions from per-entity evidence, for C2RAG's offline reader.

The offline planner gives a yes/no or choice question one constraint per entity
it compares; each constraint's block carries the evidence found for that
entity (its facts' passages or the recovered passages). This module reads them:

- "Are A and B both P?" / "Is A P?": yes when the evidence of every entity
  says every word of P (after light stemming), else no;
- "... the same N?": yes when the names said next to N in each entity's
  evidence ("... in X province") share one, else no;
- "Which came first, A or B?": the option whose evidence gives the earlier
  (or, for later/younger/newer, the later) first year; other comparisons pick
  the option whose evidence says more of the question's words, the first
  option on a tie.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from kgtool.core.text import normalize
from kgtool.reason.agents.c2rag_base import Block
from kgtool.reason.reading.form import AnswerForm
from kgtool.reason.reading.words import FALSE_WORDS as _FALSE, TRUE_WORDS as _TRUE

_WORD = re.compile(r"[A-Za-z][\w'’\-]*")
_YEAR = re.compile(r"\b(1\d{3}|20\d{2})\b")
_NAME = re.compile(r"[A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*)*")
_EARLIER = {"first", "earlier", "earliest", "older", "oldest", "before", "elder", "preceded", "sooner"}
_LATER = {"later", "latest", "last", "younger", "youngest", "newer", "newest", "recent", "recently", "after"}
# function words carry no property to check ("Are A and B both ...")
_FUNCTION = {"a", "an", "the", "is", "are", "was", "were", "be", "been", "do", "does", "did", "has", "have", "had",
             "both", "and", "or", "of", "in", "on", "at", "to", "for", "from", "by", "with", "as", "same", "which",
             "what", "who", "whom", "whose", "that", "this", "these", "those", "it", "its", "their", "they", "can",
             "could", "will", "would", "should", "there", "than", "more", "most", "less", "between", "one", "each",
             "situated", "located", "members", "member", "considered", "also", "either", "all", "any", "s"}


def _stem(word: str) -> str:
    w = word.lower().strip("'’")
    for suffix in ("ations", "ation", "ions", "ion", "ings", "ing", "ers", "er", "ors", "or", "es", "s", "ed"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            return w[: -len(suffix)]
    return w


def _stems(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text or "")}


def _head(block: Block) -> str:
    """The compared entity of a block: the constant its constraint is anchored on."""
    inner = block.constraint.strip()[1:-1] if block.constraint.startswith("(") else block.constraint
    return inner.split(", ")[0].strip()


def _about(entity: str, evidence: Sequence[str]) -> list[str]:
    """The evidence passages that name the entity (most of its words), else all of it."""
    keys = [w for w in normalize(entity).split() if len(w) > 2] or normalize(entity).split()
    named = [t for t in evidence if t and sum(k in normalize(t) for k in keys) >= max(1, (len(keys) + 1) // 2)]
    return named or [t for t in evidence if t]


def _property_words(question: str, entities: Sequence[str]) -> list[str]:
    entity_stems = set().union(*(_stems(e) for e in entities)) if entities else set()
    out = []
    for w in _WORD.findall(question)[1:]:  # the opening auxiliary asks, it is not the property
        s = _stem(w)
        if w.lower() not in _FUNCTION and s not in entity_stems and s not in out:
            out.append(s)
    return out


def _same_noun(question: str) -> str | None:
    m = re.search(r"\bsame\s+([A-Za-z][\w\-]*)", question, re.IGNORECASE)
    return _stem(m.group(1)) if m else None


def _names_near(noun: str, entity: str, texts: Sequence[str]) -> set[str]:
    """The name written closest to each mention of the noun ("in X province" -> X), the
    entity's own name aside; the first sentence's closest name when no sentence uses the noun."""
    own = set(normalize(entity).split())
    out: set[str] = set()
    for text in texts:
        sentences = re.split(r"(?<=[.!?])\s+", text)
        hits = [s for s in sentences if noun in _stems(s)] or sentences[:1]
        for s in hits:
            words = [(m.start(), _stem(m.group())) for m in _WORD.finditer(s)]
            at = [pos for pos, w in words if w == noun] or [0]
            names = [(m.start(), normalize(m.group())) for m in _NAME.finditer(s) if m.start() > 0]
            names = [(pos, key) for pos, key in names if key and not set(key.split()) <= own]
            for p in at:
                if names:
                    out.add(min(names, key=lambda n: abs(n[0] - p))[1])
    return out


def _first_year(texts: Sequence[str]) -> int | None:
    for t in texts:
        m = _YEAR.search(t)
        if m:
            return int(m.group(1))
    return None


def compare_answer(question: str, form: AnswerForm, blocks: Sequence[Block]) -> str | None:
    """'yes'/'no' for a yes/no question, one of the options for a choice; None without blocks."""
    if not blocks:
        return None
    if form.kind == "choice":
        return _choose(question, form.options, blocks)
    truths = [_truth(b.binding) for b in blocks]
    if all(t is not None for t in truths):
        # every constraint bound a stated truth value (a fact whose object is true/false): that is the answer,
        # whatever words the evidence shares with the question
        return "yes" if all(truths) else "no"
    entities = [_head(b) for b in blocks]
    evidence = [_about(e, b.evidence) for e, b in zip(entities, blocks)]
    if any(not ev for ev in evidence):
        return "no"  # nothing says it of one of them
    noun = _same_noun(question)
    if noun:
        sets = [_names_near(noun, e, ev) for e, ev in zip(entities, evidence)]
        return "yes" if sets and set.intersection(*sets) else "no"
    props = _property_words(question, entities)
    if not props:
        return "yes"
    said = all(all(p in _stems(" ".join(ev)) for p in props) for ev in evidence)
    return "yes" if said else "no"




def _truth(value: str | None) -> bool | None:
    """A bound value that is a truth value (closed-class: true/false/yes/no), else None."""
    word = (value or "").strip().lower()
    return True if word in _TRUE else False if word in _FALSE else None


def _choose(question: str, options: Sequence[str], blocks: Sequence[Block]) -> str:
    evidence = [_about(o, b.evidence) for o, b in zip(options, blocks)]
    qwords = {w.lower() for w in _WORD.findall(question)}
    direction = "earlier" if qwords & _EARLIER else "later" if qwords & _LATER else None
    if direction:
        years = [_first_year(ev) for ev in evidence]
        known = [(y, i) for i, y in enumerate(years) if y is not None]
        if len(known) == len(options):
            pick = min(known) if direction == "earlier" else max(known, key=lambda t: (t[0], -t[1]))
            return options[pick[1]]
    props = _property_words(question, options)
    support = [sum(p in _stems(" ".join(ev)) for p in props) for ev in evidence]
    best = max(range(len(options)), key=lambda i: (support[i], -i))
    return options[best]
