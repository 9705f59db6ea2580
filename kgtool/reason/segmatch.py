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
from kgtool.reason.offline_config import OFFLINE
from kgtool.reason.reading.words import INDEFINITE_HEADS

SYNONYM_WEIGHT = OFFLINE.synonym_weight  # a synonym's match counts for this much of the phrase's own
WORD_WEIGHT = OFFLINE.word_weight  # one word of a longer phrase, matched alone
MAX_SYNONYMS = 4  # per word or phrase, most frequent senses first
GLOSS_WEIGHT = OFFLINE.gloss_weight  # a phrase matching the definition of a relation's label, rather than its words
# heads of relative clauses that name no relation ("the person who founded ...")
_GENERIC_HEADS = INDEFINITE_HEADS | frozenset("who whom whoever which what where that".split())


class PhraseScorer:
    """Scores (phrase, relation) pairs; phrase vectors and synonym lists are computed once."""

    def __init__(self, matcher: RelationMatcher, lexicon: Lexicon | None = None):
        self.matcher = matcher
        self.lexicon = lexicon
        self._variants: dict[tuple[str, bool], tuple[list[tuple[str, float]], np.ndarray]] = {}
        self._memo: dict[tuple, float] = {}
        self._rel_synonyms: dict[str, frozenset[str]] = {}

    def _variant_weights(self, phrase: str, parts: bool) -> list[tuple[str, float]]:
        """The phrase and its synonyms with their weights; with `parts` also its head word's
        synonyms and its head word alone.

        The head is the noun the phrase is about: the last word of a compound ("market town"),
        the word before "of" in a noun with its complement ("head of state", "seat of
        government"). A complement or modifier alone never stands for the phrase: "state"
        (a synonym of "country") says nothing of what "head of state" names.
        """
        variants: dict[str, float] = {phrase: 1.0}
        words = [w for w in phrase.split() if w.lower() not in _GENERIC_HEADS]
        head = _head_word(words)
        if self.lexicon is not None and not parts and " " in phrase and self.lexicon.sense_count(phrase, "n"):
            # phrases read together that WordNet lists as one noun ("man of letters"): the whole's
            # synonyms, not any part's
            for syn in self.lexicon.synonyms(phrase, pos="n")[:MAX_SYNONYMS]:
                variants.setdefault(syn.lower(), SYNONYM_WEIGHT)
        if self.lexicon is not None and parts:  # phrases read together: their own words only
            for syn in self.lexicon.synonyms(phrase, pos="nav")[:MAX_SYNONYMS]:
                variants.setdefault(syn.lower(), SYNONYM_WEIGHT)
            if " " in phrase and len(phrase.split()) == 2:
                closed = phrase.replace(" ", "")
                if self.lexicon.sense_count(closed, "n"):
                    variants.setdefault(closed.lower(), 1.0)  # the same word, written closed
                for syn in self.lexicon.synonyms(closed, pos="nav")[:MAX_SYNONYMS]:
                    variants.setdefault(syn.lower(), SYNONYM_WEIGHT)  # "sea side" is listed as "seaside"
            if len(words) > 1 and head and not self._types_only(phrase, head):
                # a synonym of one word of the phrase: both discounts, the synonym's and the part's
                for syn in self.lexicon.synonyms(head, pos="nav")[:MAX_SYNONYMS]:
                    variants.setdefault(syn.lower(), SYNONYM_WEIGHT * WORD_WEIGHT)
        if len(words) > 1 and parts and head and not self._types_only(phrase, head):
            # the head alone, at a discount: a clause ("the person who founded", "the city where
            # ... was born") dilutes the word that names the relation
            variants.setdefault(head.lower(), WORD_WEIGHT)
        return list(variants.items())

    def _types_only(self, phrase: str, head: str) -> bool:
        """Does the head of a compound name only the answer's kind ("town" in "market town")? A
        place noun (WordNet's noun.location) heading a compound leaves the relation to its
        modifier; the head alone would fit any relation about places."""
        return (self.lexicon is not None and " of " not in phrase and phrase.split()[-1] == head
                and self.lexicon.names_place(head))

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

    def vectors(self, phrase: str, parts: bool = True) -> np.ndarray:
        """The embedding rows of the phrase and its variants (synonyms, head word), as `score` uses them."""
        return self._prepare(phrase, parts)[1]

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
        best = min(best, self._head_cap(phrase, prof, variants, dense))
        if best < SYNONYM_WEIGHT and phrase in self._relation_synonyms(prof):
            best = SYNONYM_WEIGHT  # the phrase is a WordNet synonym of the relation's label
        gloss = self._relation_gloss(prof)
        if gloss is not None and best < GLOSS_WEIGHT:
            stems, gloss_vectors = gloss
            dense_gloss = float(self.matcher.calibrate(float(np.max(gloss_vectors @ vectors[0]))))
            best = max(best, GLOSS_WEIGHT * max(dense_gloss, _overlap(_text_stems(phrase), stems)))
        self._memo[key] = best
        return best

    def _head_cap(self, phrase: str, prof: RelationProfile, variants, dense) -> float:
        """A noun with its complement that shares words with a relation only through the complement
        fits it no better than its head does: "seat of government" shares "government" with
        "head of government" but is about a seat. A phrase sharing no word with the relation is
        left to the embeddings ("city of birth" and "born in"), and so are compounds, whose
        modifier often names the relation while the head names only the answer's type
        ("capital city")."""
        if " of " not in phrase:
            return 1.0
        head = _head_word([w for w in phrase.split() if w.lower() not in _GENERIC_HEADS])
        words = _text_stems(phrase)
        if head is None or len(words) < 2:
            return 1.0
        relation = _phrase_stems(prof)
        shared = [w for w in words if any(stems_match(w, r) for st in relation for r in st)]
        head_stems = _text_stems(head)
        if not shared or any(any(stems_match(h, w) for w in shared) for h in head_stems):
            return 1.0
        for (text, weight), d in zip(variants, dense):
            if text == head.lower():
                return weight * max(float(d), _lexical(text, prof))
        return 0.0

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
            best = max(best, (hits / len(stems)) * (OFFLINE.overlap_base + OFFLINE.overlap_said * said))
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


def _head_word(words: Sequence[str]) -> str | None:
    """The head of a phrase's words: the word before the first "of" when one stands between two
    words ("head of state"), else the last word ("market town")."""
    lowered = [w.lower() for w in words]
    if "of" in lowered[1:-1]:
        return words[lowered.index("of") - 1]
    content = [w for w in words if w.lower() != "of"]
    while len(content) > 1 and _participle(content[-1].lower()):
        content = content[:-1]  # "the sport played by": the noun before a participle is the head
    return content[-1] if content else None


def _participle(word: str) -> bool:
    return len(word) > 4 and (word.endswith("ed") or word.endswith("ing"))


def merged_text(segments: Sequence) -> str:
    """Several consecutive segments' content words, in the order the question says them; an "of"
    right between two content words of one segment stays ("head of state": the phrase as it is said,
    for the embeddings and WordNet, and so that its head can be told from its complement)."""
    pairs = []
    for seg in segments:
        content = set(seg.content)
        words = seg.words
        for k, (word, span) in enumerate(zip(words, seg.spans)):
            # "of" joining two nouns ("head of state"); not "a national of which country"
            joins = (word.lower() == "of" and 0 < k < len(words) - 1 and words[k - 1] in content
                     and words[k + 1] in content)
            if word in content or joins:
                pairs.append((span, word))
    return " ".join(w for _span, w in sorted(pairs))
