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
MAX_SYNONYMS = 4  # per word or phrase, most frequent senses first
GLOSS_WEIGHT = 0.75  # a phrase matching the definition of a relation's label, rather than its words
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
        self._rel_synonyms: dict[str, frozenset[str]] = {}

    def _variant_weights(self, phrase: str, parts: bool) -> list[tuple[str, float]]:
        """The phrase and its synonyms with their weights; with `parts` also its head
        word's synonyms and its words alone."""
        variants: dict[str, float] = {phrase: 1.0}
        words = [w for w in phrase.split() if w.lower() not in _GENERIC_HEADS]
        if self.lexicon is not None and parts:  # phrases read together: their own words only
            candidates = [phrase]
            # the head word (the last content word that is not a generic noun) alone, too
            if len(phrase.split()) > 1 and words:
                candidates.append(words[-1])
            if " " in phrase and len(phrase.split()) == 2:
                candidates.append(phrase.replace(" ", ""))  # "home town" is listed as "hometown"
            for cand in candidates:
                for syn in self.lexicon.synonyms(cand, pos="nav")[:MAX_SYNONYMS]:
                    variants.setdefault(syn.lower(), SYNONYM_WEIGHT)
        if len(words) > 1 and parts:
            # the last word alone, at a discount: a clause ("the state that holds citizenship
            # of", "the city where ... was born") dilutes the word that names the relation
            variants.setdefault(words[-1].lower(), WORD_WEIGHT)
        return list(variants.items())

    def strings(self, phrases: Sequence[tuple[str, bool]]) -> list[str]:
        """What `prepare` would embed for these (phrase, parts): to batch it with other strings."""
        return list(dict.fromkeys(v for key in dict.fromkeys(phrases) for v, _ in self._variant_weights(*key)))

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
        if best < SYNONYM_WEIGHT and phrase in self._relation_synonyms(prof):
            best = SYNONYM_WEIGHT  # the phrase is a WordNet synonym of the relation's label
        gloss = self._relation_gloss(prof)
        if gloss is not None and best < GLOSS_WEIGHT:
            stems, gloss_vectors = gloss
            dense_gloss = float(self.matcher.calibrate(float(np.max(gloss_vectors @ vectors[0]))))
            best = max(best, GLOSS_WEIGHT * max(dense_gloss, _overlap(_text_stems(phrase), stems)))
        self._memo[key] = best
        return best

    def _relation_gloss(self, prof: RelationProfile) -> tuple[list[frozenset[str]], np.ndarray] | None:
        """The WordNet definitions of the relation's label ("mother": "a woman who has given
        birth to a child"; two most frequent senses), their stems and vectors: a relation's
        meaning in other words."""
        key = (prof.label, id(self.matcher.encoder))  # vectors belong to one embedder
        found = _GLOSSES.get(key, False)
        if found is not False:
            return found
        found = None
        if self.lexicon is not None and prof.label and len(prof.label.split()) <= 3:
            glosses = self.lexicon.glosses(prof.label, senses=2)
            if glosses:
                stems = [frozenset(s for s in content_stems(g) if s not in _GENERIC_HEADS) for g in glosses]
                found = (stems, self.matcher.encoder.encode(glosses))
        if len(_GLOSSES) > 50_000:
            _GLOSSES.clear()
        _GLOSSES[key] = found
        return found

    def _relation_synonyms(self, prof: RelationProfile) -> frozenset[str]:
        found = self._rel_synonyms.get(prof.label)
        if found is None:
            found = frozenset()
            if self.lexicon is not None and prof.label and len(prof.label.split()) <= 3:
                found = frozenset(s.lower() for s in self.lexicon.synonyms(prof.label, pos="n"))
            self._rel_synonyms[prof.label] = found
        return found

    def group_score(self, parts: Sequence[str], whole: str, prof: RelationProfile) -> float:
        """A relation's fit to several consecutive phrases said as one ("place" + "birth").

        The whole counts only where it fits better than every part alone (a relation
        said in pieces); otherwise the group is as weak as its weakest part, so one
        relation cannot swallow a neighbour's phrase ("consort" + "mayor").
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
    return _overlap(_text_stems(text), _phrase_stems(prof))


def _overlap(stems: list[str], phrasings: list[frozenset[str]]) -> float:
    if not stems:
        return 0.0
    best = 0.0
    for phrase_stems in phrasings:
        hits = sum(1 for s in stems if any(stems_match(s, r) for r in phrase_stems))
        if hits:
            said = sum(1 for r in phrase_stems if any(stems_match(s, r) for s in stems)) / len(phrase_stems)
            best = max(best, (hits / len(stems)) * (0.6 + 0.4 * said))
    return best


_STEMS: dict[tuple[str, ...], list[frozenset[str]]] = {}
_GLOSSES: dict[tuple, tuple | None] = {}  # (relation label, embedder) -> its definitions' stems and vectors
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
