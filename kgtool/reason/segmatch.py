"""How well a relation explains one relation phrase of a question (a `Segment`), 0..1.

Three general signals, the best of which counts:

* lexical: the phrase's content words against the relation's own words (its
  label and the phrasings the graph holds for it: edit templates, questions),
  through the light stemmer ("employing" meets "employer");
* dense: sentence-embedding cosine of the phrase against the relation's phrases,
  calibrated like every other matcher score ("dad" meets "father");
* lexical resource: WordNet synonyms of the phrase (and of its head word), each
  compared lexically and densely, at a small discount ("better half" meets
  "spouse", "premier" meets "prime minister" and so "head of government").

Nothing here knows any relation or phrasing: the relation side is whatever the
graph says, the question side whatever the question says.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from kgtool.core.text import content_stems, stems_match
from kgtool.reason.lexicon import Lexicon
from kgtool.reason.relmatch import RelationMatcher, RelationProfile

SYNONYM_WEIGHT = 0.9  # a synonym's match counts for this much of the phrase's own
WORD_WEIGHT = 0.85  # one word of a longer phrase, matched alone
MAX_SYNONYMS = 8  # per word or phrase, most frequent senses first
# heads of relative clauses that name no relation ("the person who founded ...")
_GENERIC_HEADS = frozenset("person one people someone somebody thing entity who whom whoever which what where "
                           "that".split())


class PhraseScorer:
    """Scores (phrase, relation) pairs; phrase vectors and synonym lists are computed once."""

    def __init__(self, matcher: RelationMatcher, lexicon: Lexicon | None = None):
        self.matcher = matcher
        self.lexicon = lexicon
        self._variants: dict[tuple[str, bool], tuple[list[tuple[str, float]], np.ndarray]] = {}
        self._memo: dict[tuple, float] = {}

    def _variant_weights(self, phrase: str, parts: bool) -> list[tuple[str, float]]:
        """The phrase and its synonyms with their weights; with `parts` also its head
        word's synonyms and its words alone."""
        variants: dict[str, float] = {phrase: 1.0}
        words = [w for w in phrase.split() if w.lower() not in _GENERIC_HEADS]
        if self.lexicon is not None:
            candidates = [phrase]
            # the head word (the last content word that is not a generic noun) alone, too
            if len(phrase.split()) > 1 and words and parts:
                candidates.append(words[-1])
            for cand in candidates:
                for syn in self.lexicon.synonyms(cand, pos="nav")[:MAX_SYNONYMS]:
                    variants.setdefault(syn.lower(), SYNONYM_WEIGHT)
        if len(words) > 1 and parts:
            # each word alone, at a discount: a long clause ("the state that holds
            # citizenship of") dilutes the one word that names the relation
            for w in words:
                variants.setdefault(w.lower(), WORD_WEIGHT)
        return list(variants.items())

    def prepare(self, phrases: Sequence[tuple[str, bool]]) -> None:
        """Embed the variants of several (phrase, parts) in one embedder call."""
        pending = {key: self._variant_weights(*key) for key in dict.fromkeys(phrases) if key not in self._variants}
        if not pending:
            return
        strings = list(dict.fromkeys(v for items in pending.values() for v, _ in items))
        vectors = self.matcher.encoder.encode(strings)
        row = {text: i for i, text in enumerate(strings)}
        for key, items in pending.items():
            self._variants[key] = (items, vectors[[row[v] for v, _ in items]])

    def _prepare(self, phrase: str, parts: bool = True) -> tuple[list[tuple[str, float]], np.ndarray]:
        if (phrase, parts) not in self._variants:
            self.prepare([(phrase, parts)])
        return self._variants[(phrase, parts)]

    def score(self, phrase: str, prof: RelationProfile, *, parts: bool = True) -> float:
        key = (phrase, parts, prof.key, prof.phrases)
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        variants, vectors = self._prepare(phrase, parts)
        dense = self.matcher.calibrate((vectors @ prof.vectors.T).max(axis=1))
        best = 0.0
        for (text, weight), d in zip(variants, dense):
            best = max(best, weight * max(float(d), _lexical(text, prof)))
        self._memo[key] = best
        return best

    def group_score(self, parts: Sequence[str], whole: str, prof: RelationProfile) -> float:
        """A relation's fit to several consecutive phrases said as one ("place" + "birth").

        The whole counts only where it fits better than every part alone (a relation
        said in pieces); otherwise the group is as weak as its weakest part, so one
        relation cannot swallow a neighbour's phrase ("mother" + "ceo").
        """
        singles = [self.score(p, prof) for p in parts]
        joint = self.score(whole, prof, parts=False)  # the words together, not any one of them
        if joint > max(singles):
            return joint
        return min(singles)


def _lexical(text: str, prof: RelationProfile) -> float:
    """Word overlap of the phrase with the relation's closest phrasing, both ways: a phrase
    that says all of a relation's words ("head of government") fits it better than one that
    says a part ("government"). Generic heads ("the person who ...") count neither way."""
    stems = _text_stems(text)
    if not stems:
        return 0.0
    best = 0.0
    for phrase_stems in _phrase_stems(prof):
        hits = sum(1 for s in stems if any(stems_match(s, r) for r in phrase_stems))
        if hits:
            said = sum(1 for r in phrase_stems if any(stems_match(s, r) for s in stems)) / len(phrase_stems)
            best = max(best, 0.6 + 0.4 * (hits / len(stems)) * said)
    return best


_STEMS: dict[tuple[str, ...], list[frozenset[str]]] = {}
_TEXT_STEMS: dict[str, list[str]] = {}


def _text_stems(text: str) -> list[str]:
    found = _TEXT_STEMS.get(text)
    if found is None:
        found = [s for s in content_stems(text) if s not in _GENERIC_HEADS]
        if len(_TEXT_STEMS) > 100_000:
            _TEXT_STEMS.clear()
        _TEXT_STEMS[text] = found
    return found


def _phrase_stems(prof: RelationProfile) -> list[frozenset[str]]:
    found = _STEMS.get(prof.phrases)
    if found is None:
        found = [frozenset(st) for st in (content_stems(p) for p in prof.phrases) if st]
        if len(_STEMS) > 50_000:
            _STEMS.clear()
        _STEMS[prof.phrases] = found
    return found


def merged_text(segments: Sequence) -> str:
    """Several consecutive segments' content words, in the order the question says them."""
    pairs = sorted((span, word) for seg in segments for word, span in zip(seg.words, seg.spans)
                   if word in seg.content)
    return " ".join(w for _span, w in pairs)
