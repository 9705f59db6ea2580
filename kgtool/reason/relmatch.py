"""Matching question wording against relation phrasings, without an LLM.

The offline agents need one judgement over and over: does this stretch of text
(a question, a sub-question, an evidence sentence) express that relation? A
relation is known only by the phrases the graph gives for it: its label and
whatever phrasings the corpus attaches to it (cloze templates, single-hop
questions). Two signals answer the question, and each covers the other's
blind spot:

* lexical: content words of the text and of the phrases, reduced by a light
  suffix-stripping stemmer, so "founder", "founded" and "founding" meet;
* dense: sentence-embedding cosine between the text's words / short word
  groups and the phrases, so "wife" meets "spouse" and "CEO" meets "chief
  executive officer".

Scores are per content token of the text (how well relation r explains token
t), which is what the planner needs to check that every hop accounts for its
own part of the question. Embedding calls are the expensive part, so vectors
are cached per string and each text is encoded in one batch call.
"""
from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from kgtool.core.text import Token, content_stems, stems_match, tokenize
from kgtool.core.types import Embedder
from kgtool.models.embed import CachedEmbedder
from kgtool.reason.offline_config import OFFLINE


def phrase_core(phrase: str) -> str:
    """A relation phrase with template slots and placeholders removed."""
    text = phrase.replace("{}", " ").replace("[ENT]", " ")
    return re.sub(r"\s+", " ", text).strip(" ?.!,;:")


@dataclass
class RelationProfile:
    """What the matcher knows about one relation: its phrases, stems and vectors."""

    key: str
    phrases: tuple[str, ...]  # cores, slots removed, de-duplicated
    stems: frozenset[str]
    vectors: np.ndarray  # one row per phrase
    label: str = ""
    questions: tuple[str, ...] = ()  # phrasings with a "{}" slot that read as questions
    templates: tuple[str, ...] = ()  # phrasings with a "{}" slot (cloze or question)


@dataclass
class TextAnalysis:
    """A text prepared once for matching against many relations."""

    text: str
    tokens: list[Token]  # content tokens only, in order
    units: list[str]  # strings that were embedded: tokens, then word groups
    unit_tokens: list[tuple[int, ...]]  # which content tokens each unit covers
    vectors: np.ndarray
    whole: np.ndarray | None = None  # vector of all content words together
    _cache: dict[tuple[str, tuple[str, ...]], np.ndarray] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(self.tokens)


class RelationMatcher:
    """Scores how well texts express relations; shared by the offline agents.

    `floor` and `ceil` map raw cosines of the embedder onto 0..1: at or below
    `floor` two strings are treated as unrelated, at `ceil` as paraphrases.
    Defaults suit MiniLM-class sentence embedders, whose unrelated short
    phrases sit around 0.1-0.35 and close paraphrases above 0.75.
    """

    def __init__(
        self,
        embedder: Embedder,
        *,
        floor: float = OFFLINE.match_floor,
        ceil: float = OFFLINE.match_ceil,
        max_group: int = 1,
    ):
        self.encoder = embedder if isinstance(embedder, CachedEmbedder) else CachedEmbedder(embedder)
        self.floor = floor
        self.ceil = ceil
        self.max_group = max_group
        self.max_profiles = 50_000
        self._profiles: OrderedDict[tuple[str, tuple[str, ...]], RelationProfile] = OrderedDict()

    # -- relations -------------------------------------------------------
    def profile(self, key: str, phrases: Iterable[str]) -> RelationProfile:
        raw = tuple(dict.fromkeys(p for p in phrases if p and p.strip()))
        cache_key = (key, raw)
        found = self._profiles.get(cache_key)
        if found is not None:
            return found
        cores = tuple(dict.fromkeys(c for c in (phrase_core(p) for p in raw) if c)) or (key,)
        stems = frozenset(s for c in cores for s in content_stems(c))
        templates = tuple(p for p in raw if "{}" in p)
        questions = tuple(p for p in templates if p.rstrip().endswith("?"))
        label = next((p for p in raw if "{}" not in p), cores[0])
        prof = RelationProfile(
            key=key,
            phrases=cores,
            stems=stems,
            vectors=self.encoder.encode(list(cores)),
            label=label,
            questions=questions,
            templates=templates,
        )
        self._profiles[cache_key] = prof
        # Ad-hoc profiles (texts compared as if they were relations) would
        # otherwise pile up over a long run.
        while len(self._profiles) > self.max_profiles:
            self._profiles.popitem(last=False)
        return prof

    def relation_similarity(self, a: RelationProfile, b: RelationProfile) -> float:
        """Raw cosine of the closest phrase pair (same scale as CARE's delta_rel)."""
        if a.key == b.key:
            return 1.0
        return float(np.max(a.vectors @ b.vectors.T))

    # -- texts -----------------------------------------------------------
    def analyse_many(
        self, items: Sequence[tuple[str, Sequence[tuple[int, int]]]], *, whole: bool = True
    ) -> list[TextAnalysis]:
        """`analyse` for several texts with a single embedder call for all of them."""
        pending = [self._split(text, exclude, whole) for text, exclude in items]
        batch = [u for p in pending for u in p[3]]
        if batch:
            self.encoder.encode(batch)  # fills the cache; each analysis then reads from it
        return [self.analyse(text, exclude, whole=whole) for text, exclude in items]

    def _split(
        self, text: str, exclude: Sequence[tuple[int, int]], whole: bool
    ) -> tuple[list[Token], list[str], list[tuple[int, ...]], list[str]]:
        """Content tokens, embedded units, their tokens, and the strings to embed."""
        all_tokens = tokenize(text, exclude)
        content_idx = [i for i, t in enumerate(all_tokens) if t.content]
        tokens = [all_tokens[i] for i in content_idx]
        units: list[str] = [t.text.lower() for t in tokens]
        unit_tokens: list[tuple[int, ...]] = [(k,) for k in range(len(tokens))]
        for size in range(2, self.max_group + 1):
            for k in range(len(tokens) - size + 1):
                first, last = content_idx[k], content_idx[k + size - 1]
                # Only groups that are not split by a slot (an excluded
                # entity) or by more than two glue words stay together.
                if last - first > 3 * (size - 1):
                    continue
                if any(s > tokens[k].start and s < tokens[k + size - 1].end for s, _ in exclude):
                    continue
                units.append(text[tokens[k].start : tokens[k + size - 1].end].lower())
                unit_tokens.append(tuple(range(k, k + size)))
        whole_text = " ".join(t.text.lower() for t in tokens)
        batch = units + ([whole_text] if whole and whole_text and len(tokens) > 1 else [])
        return tokens, units, unit_tokens, batch

    def strings(self, text: str, exclude: Sequence[tuple[int, int]] = (), *, whole: bool = True) -> list[str]:
        """The strings `analyse` embeds for this text (to batch them with other strings)."""
        return self._split(text, exclude, whole)[3]

    def analyse(self, text: str, exclude: Sequence[tuple[int, int]] = (), *, whole: bool = True) -> TextAnalysis:
        """Split a text into content tokens (and, if `max_group` > 1, word groups) and embed them.

        Word groups are runs of content tokens adjacent in the text (up to
        two glue words between, as in "country of citizenship"). They are off
        by default: on relation phrases they add little over single words
        matched against whole phrases, and they multiply the strings to embed.
        """
        tokens, units, unit_tokens, batch = self._split(text, exclude, whole)
        vectors = self.encoder.encode(batch) if batch else np.zeros((0, 1), dtype=np.float32)
        whole_vec = None
        if len(batch) > len(units):
            whole_vec, vectors = vectors[-1], vectors[:-1]
        elif len(tokens) == 1:
            whole_vec = vectors[0]
        return TextAnalysis(text, tokens, units, unit_tokens, vectors, whole_vec)

    def calibrate(self, cos: np.ndarray | float) -> np.ndarray:
        return np.clip((np.asarray(cos, dtype=np.float32) - self.floor) / (self.ceil - self.floor), 0.0, 1.0)

    def lexical_scores(self, analysis: TextAnalysis, prof: RelationProfile) -> np.ndarray:
        return np.array(
            [1.0 if any(stems_match(t.stem, s) for s in prof.stems) else 0.0 for t in analysis.tokens],
            dtype=np.float32,
        )

    def token_scores(self, analysis: TextAnalysis, prof: RelationProfile) -> np.ndarray:
        """How well the relation explains each content token of the text (0..1).

        A token is explained lexically (its stem is among the relation's), or
        densely by the best-matching unit that contains it. A word group
        lends its score to its tokens only when the group as a whole matches
        better than its parts, so "country of citizenship" can explain
        "country" while "country where the spouse" does not explain "spouse".
        """
        cache_key = (prof.key, prof.phrases)
        cached = analysis._cache.get(cache_key)
        if cached is not None:
            return cached
        n = analysis.size
        if n == 0:
            return np.zeros(0, dtype=np.float32)
        lex = self.lexical_scores(analysis, prof)
        cos = (analysis.vectors @ prof.vectors.T).max(axis=1)
        dense = self.calibrate(cos)
        best = dense[:n].copy()
        for u in range(n, len(analysis.units)):
            members = analysis.unit_tokens[u]
            # The group must beat each member alone, and every member must
            # itself show some affinity (lexical or dense) to the relation.
            if all(dense[u] > dense[m] for m in members) and all(max(lex[m], dense[m]) > 0 for m in members):
                for m in members:
                    best[m] = max(best[m], dense[u])
        scores = np.maximum(lex, best)
        analysis._cache[cache_key] = scores
        return scores

    def expresses(self, analysis: TextAnalysis, prof: RelationProfile) -> float:
        """Does a longer text say the relation somewhere (0..1)?

        For evidence sentences: one word that is the relation's, or the text
        as a whole reading like one of its phrases, is enough; the other
        words of the sentence do not count against it.
        """
        if analysis.size == 0:
            return 0.0
        best = float(self.token_scores(analysis, prof).max())
        if analysis.whole is not None:
            best = max(best, float(self.calibrate(float(np.max(prof.vectors @ analysis.whole)))))
        return best

    def fit(self, analysis: TextAnalysis, prof: RelationProfile) -> float:
        """How well a short text as a whole expresses the relation (0..1).

        Mean token score, blended with the whole-text embedding match, so a
        sub-question whose every content word belongs to the relation scores
        near 1 and one that mixes in foreign words scores lower.
        """
        if analysis.size == 0:
            return 0.0
        tok = float(np.mean(self.token_scores(analysis, prof)))
        if analysis.whole is None:
            return tok
        whole = float(self.calibrate(float(np.max(prof.vectors @ analysis.whole))))
        return 0.5 * tok + 0.5 * max(tok, whole)
