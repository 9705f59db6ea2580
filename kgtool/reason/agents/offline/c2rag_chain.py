"""How much of the offline planner's path C2RAG's constraint chain keeps, and whether the answer lies beyond it.

The planner (kgtool.reason.agents.offline.planner) returns its best path even where a hop explains
none of the question: it lists the relation phrases its path leaves unexplained
(OfflinePlan.unexplained) and the words each hop accounts for (OfflinePlan.explained). Two readings
of that list, both about the question's phrases, never about any data set's wording:

- A hop is supported when some phrase it accounts for words of is not left unexplained. A trailing
  hop through a relation only read from passages (an extracted sentence fragment, "a silent drama film
  directed and written by") that is not supported is a guess the search made to reach further, not a
  relation the question asks for: the chain stops before it. Stated relations (a fact file's, an
  edit's) are a graph's own vocabulary and keep their hops: their names often share no word with the
  question ("backs" for INVESTED_IN) and the planner chose them among few.
- When the question's outermost phrase (what it asks of the chain's end, read last) is unexplained,
  the chain ends at a bridge ("Who was in charge of" the country reached): the answer is recovered
  from text about the chain's end. Not when no hop of the chain is supported (the chain is then no
  reading of the question at all, only the planner's best guess for its one phrase), and not when the
  chain's end already is of the kind the question asks for ("What currency ..." ending at an object of
  a `currency` fact): the unexplained phrase then only says more of the answer the chain reached.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from kgtool.core.text import light_stem, stems_match, words
from kgtool.reason.agents.offline.answer_form import TYPE_NOUNS
from kgtool.reason.agents.offline.kind_hops import kind_word
from kgtool.reason.kinds import label_kind
from kgtool.reason.question import FUNCTION_WORDS, QuestionReading, read_question

_QUOTED = re.compile(r'"[^"]+"|“[^”]+”')


def reading_of(question: str, base) -> QuestionReading | None:
    span = getattr(base, "topic_span", None)
    return read_question(question, tuple(span)) if span else None


def supported(reading: QuestionReading | None, base) -> list[bool]:
    """Per hop of the plan: does it account for words of a phrase the plan does not leave unexplained?
    Without a reading (no topic span), every hop counts as supported: nothing says otherwise."""
    explained = list(getattr(base, "explained", None) or [])
    hops = len(getattr(base, "relations", None) or [])
    if reading is None or len(explained) < hops:
        return [True] * hops
    left = set(getattr(base, "unexplained", None) or [])
    out, before = [], set()
    for said in explained[:hops]:
        # only the words no earlier hop accounts for: a word two hops share ("county" of "the county
        # where ... is located" and of "What county shares a border") is the earlier hop's
        said = {w.lower() for w in said} - before
        before |= said
        phrases = [seg for seg in reading.segments if said & {w.lower() for w in seg.content}]
        out.append(any(seg.text not in left for seg in phrases))
    return out


def kept_hops(supports: Sequence[bool], keys: Sequence[str], stated: Collection[str]) -> int:
    """How many leading hops the chain keeps: trailing unsupported hops through relations only read
    from passages are cut, down to the last supported hop (none supported: the path stays whole)."""
    n = len(keys)
    if not any(supports):
        return n
    while n > 0 and not supports[n - 1] and keys[n - 1] not in stated:
        n -= 1
    return n


def last_phrase_unexplained(question: str, base, reading: QuestionReading | None, said: Sequence[str]) -> bool:
    """Whether the planner's path leaves the question's outermost relation phrase unexplained
    (OfflinePlan.unexplained) and no relation of the chain (`said`: their phrasings) shares a content
    word with it. Phrases are read nearest the topic first, so the last required one is what the
    question asks of the end of the chain; a phrase a hop's relation words ("has a citizenship of"
    against `country of citizenship`) is that hop's, however the reading grouped its words."""
    left = list(getattr(base, "unexplained", None) or [])
    if not left or reading is None:
        return False
    # a frame verb the hop before it may say ("Who directed the film that ...") is left out of the
    # planner's unexplained phrases when that hop says it: only what the planner left counts
    required = reading.required
    if not required or required[-1].text not in left:
        return False
    # words inside quotation marks quote a title or a saying ('... called X "an impressive imposter"'):
    # they name no relation, so a phrase made only of them and function words asks nothing more
    quoted = [(m.start(), m.end()) for m in _QUOTED.finditer(question)]
    last = required[-1]
    asked = [light_stem(w) for w, (s0, e0) in zip(last.words, last.spans)
             if w.lower() not in FUNCTION_WORDS and not any(a <= s0 and e0 <= b for a, b in quoted)]
    # the answer's type and a naming noun ask for the answer itself, not a relation of it ("the name of
    # the city that is the capital of ...": the chain's end is that city)
    typed = {light_stem(w) for w in [*words(reading.answer_type or ""), *TYPE_NOUNS, "name", "names", "title"]}
    asked = [a for a in asked if a not in typed]
    relation_stems = {light_stem(w) for phrase in said for w in words(phrase)}
    return bool(asked) and not any(stems_match(a, r) for a in asked for r in relation_stems)


def kind_keys(word: str, vocabulary: dict[str, list[str]]) -> list[str]:
    """Keys of the relations whose label names its object by the kind's word (kgtool.reason.kinds)."""
    stem = light_stem(word)
    return [key for key, phrases in vocabulary.items() if label_kind(phrases[0] if phrases else key) == stem]


def end_of_asked_kind(reading: QuestionReading | None, last_label: str, last_direction: str,
                      end_id: str | None, vocabulary: dict[str, list[str]], db) -> bool:
    """Is the chain's end of the kind the question's noun asks for ("What currency ...")? The last hop
    read forwards names its object's kind, or some relation naming the kind ends at the entity. Only
    positive evidence counts (a graph naming no relation after the kind says nothing)."""
    word = kind_word(reading, None) if reading is not None else None
    if not word or " " in word:
        return False
    if last_direction != "in" and label_kind(last_label) == light_stem(word):
        return True
    keys = kind_keys(word, vocabulary)
    if not keys or not end_id or db is None:
        return False
    rows = db.read("graph/object_of_relations", entity_id=end_id, keys=keys)
    return bool(rows and rows[0]["found"])


__all__ = ["end_of_asked_kind", "kept_hops", "last_phrase_unexplained", "reading_of", "supported"]
