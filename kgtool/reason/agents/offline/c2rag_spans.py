"""Answer spans in passages, for readers that have no LLM.

Candidates follow the answer type the question asks for (kgtool.reason
.reading.form): dates for "when / what year", numbers for "how many",
names (entities the gazetteer links, widened to the whole capitalised name
around them, and capitalised runs) otherwise; a span of another shape is never
an answer ("1986" does not answer "Who directed ...?"). For a choice question
only its options are candidates. `rank_spans` scores each candidate by how
well its sentence says what is asked (relation phrasings matched by the
offline matcher), by whether that sentence also names what is already known
(the anchor), by the question words it shares, and by the passage's rank; a
name that looks like a person (for "who") or follows a place preposition (for
"where") is preferred. Names the question or the anchor already use, and
one-word capitalised fragments that only open a sentence ("Regarded", "Time"),
are never answers.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kgtool.core.text import light_stem, normalize, stems_match, tokenize, words
from kgtool.core.types import PassageHit
from kgtool.reason.reading import analysis
from kgtool.reason.reading.form import (
    AnswerForm,
    noun_fit,
    shape_answer,
    span_shape,
)
from kgtool.reason.offline_config import OFFLINE
from kgtool.reason.reading.words import CLAUSE_OPENERS as _OPENERS

_SENTENCE = re.compile(r"[^.!?]+(?:[.!?]+(?=\s|$)|$)")
_GLUE_WORDS = r"of|the|de|von|van|der|du|la|le|and|&"
_CAPS = re.compile(rf"\b(?:[A-Z][\w'’\-]*\.?|{_GLUE_WORDS})(?:\s+(?:[A-Z][\w'’\-]*\.?|{_GLUE_WORDS}))*")
_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
          r"Jan\.?|Feb\.?|Mar\.?|Apr\.?|Jun\.?|Jul\.?|Aug\.?|Sep\.?|Sept\.?|Oct\.?|Nov\.?|Dec\.?)")
_DATE = re.compile(rf"\b(?:\d{{1,2}}\s+{_MONTH}\s+\d{{3,4}}|{_MONTH}\s+\d{{1,2}},?\s+\d{{3,4}}|{_MONTH}\s+\d{{3,4}}|"
                   rf"\d{{1,2}}(?:st|nd|rd|th)\s+century|1\d{{3}}s?|20\d{{2}}s?)\b")
_NUMBER = re.compile(r"\b\d[\d,.]*(?:\s+(?:million|billion|thousand))?\b|\b(?:once|twice|thrice)\b"
                     r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?=[\s-]+\w)", re.IGNORECASE)
_GLUE = {"of", "the", "de", "von", "van", "der", "du", "la", "le", "and", "&"}
_PLACE_PREP = re.compile(r"\b(?:in|at|from|near|into)\s+(?:the\s+)?$", re.IGNORECASE)
_POSSESSIVE = re.compile(r"(?<=\w)['’]s?$")
_MONTH_ONLY = re.compile(rf"{_MONTH}(?:\s+\d{{1,2}})?")
_ADJ_SUFFIX = ("-based", "-born", "-speaking", "-language")
# a span the bound chain also names (a binding, or a name in its evidence) is the chain's reading of the
# passages as well as the passages' own: a fixed lift, not fitted to any question set
SUPPORT_BONUS = OFFLINE.support_bonus


@dataclass
class Span:
    text: str
    passage_id: str
    score: float
    entity_id: str | None = None


def expected_kind(text: str) -> str:
    """'date', 'number' or 'entity': the coarse kind of answer the question asks for."""
    kind = analysis.analysed(text).kind
    return {"year": "date", "date": "date", "number": "number"}.get(kind, "entity")


def _sentences(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _SENTENCE.finditer(text or "") if m.group().strip()]


def _trim_name(text: str, start: int, end: int) -> tuple[int, int]:
    """The run without leading/trailing glue words ("of the X" -> "X")."""
    toks = [(start + m.start(), start + m.end()) for m in re.finditer(r"\S+", text[start:end])]
    while toks and text[toks[0][0]:toks[0][1]].lower() in _GLUE:
        toks.pop(0)
    while toks and text[toks[-1][0]:toks[-1][1]].lower() in _GLUE:
        toks.pop()
    if not toks:
        return start, start
    end = toks[-1][1]
    if text[end - 1] == "." and end - toks[-1][0] > 2:  # a sentence's full stop, not an initial's ("E.")
        end -= 1
    return toks[0][0], end


_RUN_BREAK = re.compile(r"(?<=[a-z0-9]{2})\.\s+")  # a full stop after a word, not an initial ("J. Smith")


def _caps_runs(text: str) -> list[tuple[int, int]]:
    out = []
    for m in _CAPS.finditer(text):
        # a run does not go on past a sentence's end ("born in Orsk Valley. He died")
        starts = [m.start()] + [m.start() + b.end() for b in _RUN_BREAK.finditer(m.group())]
        ends = [m.start() + b.start() + 1 for b in _RUN_BREAK.finditer(m.group())] + [m.end()]
        for a, b in zip(starts, ends):
            s, e = _trim_name(text, a, b)
            if e > s and any(t[:1].isupper() for t in text[s:e].split()):
                out.append((s, e))
    return out


def _parts(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The glue-free pieces of a capitalised run, when it has glue words inside."""
    pieces, cur = [], []
    for m in re.finditer(r"\S+", text[start:end]):
        if m.group().lower() in _GLUE:
            if cur:
                pieces.append((start + cur[0][0], start + cur[-1][1]))
            cur = []
        else:
            cur.append((m.start(), m.end()))
    if cur:
        pieces.append((start + cur[0][0], start + cur[-1][1]))
    return pieces if len(pieces) > 1 else []


def _last_word(name: str) -> str:
    toks = name.lower().split()
    word = toks[-1] if toks else ""
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def _whole_name(text: str, start: int, end: int, runs: list[tuple[int, int]]) -> tuple[int, int]:
    """A linked mention widened to the capitalised name it is part of (a surname in the full name it ends)."""
    for s, e in runs:
        if s <= start and end <= e and (s, e) != (start, end):
            inner = text[s:e]
            # only a plain name widens: a run with glue words may join two names ("A and B", "X of Y")
            if not any(t.lower() in _GLUE for t in inner.split()) and len(inner.split()) <= 5:
                return s, e
    return start, end


def _sentence_opener(text: str, start: int, end: int, sentence_start: int) -> bool:
    """A one-word capitalised span that is only capitalised because it opens the sentence."""
    return start <= sentence_start + (len(text[sentence_start:start]) - len(text[sentence_start:start].lstrip())) \
        and " " not in text[start:end].strip()


def _candidates(text: str, form: AnswerForm, mentions) -> list[tuple[int, int, str, str | None, bool]]:
    """(start, end, surface, entity id, linked) for every span of the asked shape."""
    if form.kind in ("date", "year"):
        return [(m.start(), m.end(), m.group(), None, False) for m in _DATE.finditer(text)]
    if form.kind == "number":
        # a year or a day of a date is not a count
        dates = [(m.start(), m.end()) for m in _DATE.finditer(text)]
        return [(m.start(), m.end(), m.group(), None, False) for m in _NUMBER.finditer(text)
                if not any(s <= m.start() < e for s, e in dates)]
    runs = _caps_runs(text)
    out: dict[tuple[int, int], tuple[int, int, str, str | None, bool]] = {}
    for s, e, eid, _surface in mentions:
        s, e = _whole_name(text, s, e, runs)
        out[(s, e)] = (s, e, text[s:e], eid if text[s:e] == _surface else None, True)
    covered = [(s, e) for s, e in out]
    head = form.noun.split()[-1] if form.noun else ""
    for s, e in runs:
        # a run joined by glue words may be one name ("the Bank of X") or two ("X of the Y", a person and a paper):
        # both readings are candidates, and the sentence decides; a name that ends in the noun asked by
        # runs up to it ("Sangre de Cristo Range" of "... Range of the Rocky Mountains")
        parts = _parts(text, s, e)
        named = [(s, pe) for _ps, pe in parts[:-1] if head and _last_word(text[s:pe]) == head]
        for ps, pe in [(s, e), *parts, *named]:
            if not any(cs <= ps and pe <= ce for cs, ce in covered) and (ps, pe) not in out:
                out[(ps, pe)] = (ps, pe, text[ps:pe], None, False)
    cleaned = {}
    for s, e, surface, eid, linked in out.values():
        # a capitalised opener is no part of a name the text does not link ("On December", "After Iowa");
        # a month alone is part of a date
        toks = surface.split()
        while not linked and len(toks) > 1 and toks[0].lower() in _OPENERS:
            s += surface.index(toks[1], len(toks[0]))
            surface = surface[surface.index(toks[1], len(toks[0])):]
            toks = surface.split()
        if not linked and (toks[0].lower() in _OPENERS or _MONTH_ONLY.fullmatch(surface)):
            continue
        cleaned.setdefault((s, s + len(surface)), (s, s + len(surface), surface, eid, linked))
    return [c for c in cleaned.values() if span_shape(c[2]) == "name" and not c[2].lower().endswith(_ADJ_SUFFIX)]


def _proximity(sentence: str, start: int, end: int, cues: set[str]) -> float:
    """1 / (1 + words between the span and the nearest cue word of the sentence); 0 without one."""
    toks = [(m.start(), normalize(m.group())) for m in re.finditer(r"[\w'’\-]+", sentence)]
    before = [i for i, (pos, _w) in enumerate(toks) if pos < start]
    after = [i for i, (pos, _w) in enumerate(toks) if pos >= end]
    gaps = [len(before) - 1 - i for i in before if toks[i][1] in cues] + \
           [i - after[0] for i in after if toks[i][1] in cues] if after else \
           [len(before) - 1 - i for i in before if toks[i][1] in cues]
    return 1.0 / (1.0 + min(gaps)) if gaps else 0.0


def _person_like(surface: str) -> bool:
    toks = surface.split()
    return 2 <= len(toks) <= 4 and all(t[:1].isupper() and not any(ch.isdigit() for ch in t) for t in toks)


def _option_of(surface: str, options: Sequence[str]) -> str | None:
    key = normalize(surface)
    for o in options:
        ko = normalize(o)
        if ko and (key == ko or (len(key) > 2 and (key in ko or ko in key))):
            return o
    return None


_AND = re.compile(r"\s+(?:and|&)\s+")


def _joins_a_given_name(surface: str, given: set[str]) -> bool:
    """"A and B" where A (or B) is a name the question or the anchor already uses: two names, the given one
    and another, not one answer (the other name is a candidate of its own)."""
    parts = _AND.split(surface)
    return len(parts) > 1 and any(set(words(part)) and set(words(part)) <= given for part in parts)


def says_lexically(text: str, stems) -> bool:
    """Does a content word of `text` match one of the relation's stems (RelationMatcher.lexical_scores)?"""
    return any(t.content and any(stems_match(t.stem, st) for st in stems) for t in tokenize(text))


def rank_spans(passages: Sequence[PassageHit], *, asked: Sequence[str], known: Sequence[str], question: str,
               link_mentions=None, matcher=None, kind: str | None = None,
               weights: Sequence[float] | None = None, form: AnswerForm | None = None,
               mentions: Mapping[str, Sequence] | None = None, support: Sequence[str] = ()) -> list[Span]:
    """Candidate answers in `passages`, best first.

    asked: phrasings of what is asked (relation variants or the question);
    known: names the answer must not be (the anchor, bound entities);
    link_mentions(text) -> [(start, end, entity_id, surface)]; matcher: the
    offline RelationMatcher (without one, word overlap measures the sentence).
    form: the answer form (default: read off `question`); kind: 'date',
    'number' or 'entity', a coarse override kept for callers that know only that.
    weights: one per passage (default 1/rank).
    mentions: passage id -> its mentions, already located (kgtool.reason.agents.offline.text_reader);
    a passage listed there is not run through link_mentions. support: what the bound chain says
    (its bindings and evidence): a span it names gains SUPPORT_BONUS.
    """
    form = form or analysis.analysed(question).form
    if kind is not None and kind != {"year": "date"}.get(form.kind, form.kind):
        form = AnswerForm({"entity": "entity", "date": "date", "number": "number"}.get(kind, "entity"))
    if form.kind == "yesno":
        return []  # a yes/no question is not answered by a span
    banned = {normalize(k) for k in known if k}
    question_words = set(words(question))
    known_words = {w for k in known for w in words(k)}
    asked_words = {w for a in asked for w in words(a)}
    cue_words = (asked_words | known_words) - _GLUE
    prof = matcher.profile("asked:" + "|".join(asked), list(asked)) if matcher is not None and asked else None
    asked_stems = {light_stem(w) for w in asked_words - _GLUE}
    supported = " ".join(normalize(t) for t in support if t)
    best: dict[str, Span] = {}
    candidates = []
    for hit in passages:
        text = hit.text or ""
        if not form.wants_name:
            found = []
        elif mentions is not None and hit.passage_id in mentions:
            found = list(mentions[hit.passage_id])
        else:
            found = list(link_mentions(text)) if link_mentions is not None else []
        candidates.append(_candidates(text, form, found))
    analysed: dict[str, object] = {}
    says: dict[str, float] = {}  # sentence -> how it says what is asked, where its words alone settle it
    if prof is not None:
        # the words of every sentence holding a candidate, in one embedder call (one call per sentence cost
        # ~40 ms each on a busy machine); a sentence without one is never scored, so it is not embedded
        texts = list(dict.fromkeys((h.text or "")[a:b] for h, spans in zip(passages, candidates)
                                   for a, b in _sentences(h.text or "")
                                   if any(sp[0] >= a and sp[1] <= b for sp in spans)))
        # a sentence holding one of the asked relation's own words says it fully (the matcher's score of
        # a text is its best word's, and a word of the relation scores 1), whatever its other words
        # embed to: only the others are embedded
        says = {t: 1.0 for t in texts if says_lexically(t, prof.stems)}
        rest = [t for t in texts if t not in says]
        analysed = dict(zip(rest, matcher.analyse_many([(t, ()) for t in rest], whole=False)))
    for n, hit in enumerate(passages):
        weight = weights[n] if weights is not None else 1.0 / (n + 1)
        text = hit.text or ""
        spans = candidates[n]
        for s0, e0 in _sentences(text):
            sentence = text[s0:e0]
            inside = [sp for sp in spans if sp[0] >= s0 and sp[1] <= e0]
            if not inside:
                continue
            sent_words = set(words(sentence))
            if prof is not None:
                said = says.get(sentence)
                if said is None:
                    said = matcher.expresses(analysed.get(sentence) or matcher.analyse(sentence, whole=False), prof)
            else:
                # stems, so "directed" in the sentence says "director" of the question
                sent_stems = {light_stem(w) for w in sent_words}
                said = len(asked_stems & sent_stems) / max(1, len(asked_stems))
            anchored = len(known_words & sent_words) / max(1, len(known_words)) if known_words else 0.0
            overlap = len(question_words & sent_words) / max(1, len(question_words))
            for s, e, surface, eid, linked in inside:
                surface = _POSSESSIVE.sub("", surface.strip())  # "Deep Purple's" names Deep Purple
                if form.kind == "choice":
                    option = _option_of(surface, form.options)
                    if option is None:
                        continue
                    surface, eid = option, None
                key = normalize(surface)
                if not key or key in banned:
                    continue
                if form.kind != "choice" and (set(words(surface)) <= question_words | known_words
                                              or _joins_a_given_name(surface, question_words | known_words)):
                    continue
                if form.wants_name and not linked and _sentence_opener(text, s, e, s0):
                    continue
                # near the words of the relation or the anchor: the span that sentence says it about
                score = weight * (OFFLINE.span_said_weight * said + OFFLINE.span_anchor_weight * anchored
                                  + OFFLINE.span_overlap_weight * overlap
                                  + OFFLINE.span_near_weight * _proximity(sentence, s - s0, e - s0, cue_words))
                if hit.title and normalize(hit.title) == key:
                    score *= OFFLINE.title_bonus  # the passage is about this entity
                if supported and f" {key} " in f" {supported} ":
                    score *= SUPPORT_BONUS
                if form.kind == "person" and _person_like(surface):
                    score *= OFFLINE.person_bonus
                if form.kind == "place" and _PLACE_PREP.search(text[s0:s]):
                    score *= OFFLINE.place_bonus
                # the noun the question asks by ("what county"): a span named so, or of another kind of place
                score *= noun_fit(surface, text[s0:s], form)
                surface = shape_answer(surface, form)
                key = normalize(surface)
                if key not in best or score > best[key].score:
                    best[key] = Span(surface, hit.passage_id, score, eid)
    return sorted(best.values(), key=lambda sp: (-sp.score, sp.text))
