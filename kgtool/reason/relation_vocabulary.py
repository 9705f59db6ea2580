"""The graph's relation vocabulary: every relation, for asking which one a phrase names best.

The status rule's reading check (kgtool.reason.explains) asks it whether another relation of the
graph explains a question's phrase better than the hop the chain took.
"""
from __future__ import annotations

import threading

import numpy as np

from kgtool.core.text import content_stems, stems_match
from kgtool.reason.relmatch import phrase_core

CANDIDATES = 6  # relations of the vocabulary scored in full per phrase, by embedding similarity


class RelationVocabulary:
    """Every relation of the graph, for asking which one a phrase names best.

    Built once per set of relation phrasings (they change only on ingestion): the
    relations' phrases are embedded in one call, so a phrase is compared with every
    relation by one matrix product; the few closest (and those sharing a word stem
    with it) are then scored in full by the PhraseScorer.
    """

    def __init__(self, phrases: dict[str, list[str]], encoder):
        self.keys = list(phrases)
        self.phrases = phrases
        rows: list[str] = []
        owner: list[int] = []
        self.stems: dict[str, set[int]] = {}
        for k, key in enumerate(self.keys):
            cores = [c for c in dict.fromkeys(phrase_core(p) for p in phrases[key] or [key]) if c] or [key]
            for core in cores:
                rows.append(core)
                owner.append(k)
                for stem in content_stems(core):
                    self.stems.setdefault(stem, set()).add(k)
        self.owner = np.asarray(owner, dtype=np.int64)
        self.matrix = encoder.encode(rows) if rows else np.zeros((0, 1), dtype=np.float32)

    def candidates(self, text: str, vectors: np.ndarray, limit: int = CANDIDATES) -> list[str]:
        """The relations most similar to any of the phrase's variant vectors, and those sharing its stems."""
        if not self.keys:
            return []
        sims = (vectors @ self.matrix.T).max(axis=0)
        best = np.full(len(self.keys), -np.inf, dtype=np.float32)
        np.maximum.at(best, self.owner, sims)
        picked = [int(i) for i in np.argsort(-best)[:limit]]
        for stem in content_stems(text):
            for known, members in self.stems.items():
                if stems_match(stem, known):
                    picked.extend(members)
        return [self.keys[i] for i in dict.fromkeys(picked)]


_VOCABULARIES: dict[tuple[int, int, bool], tuple[object, RelationVocabulary]] = {}
_VOCAB_LOCK = threading.Lock()


def vocabulary_of(catalog, encoder, *, stated_only: bool = False) -> RelationVocabulary | None:
    """The graph's relation vocabulary (cached per catalog phrasings and embedder); None when the
    catalog cannot list its relations. `stated_only`: only the relations an edit or a fact file states
    (when there are any), the source prior of a mixed store: a chain of stated facts is not judged
    against the phrasings extraction read from passages ("was the capital of"), which name a
    question's words more literally than any stated relation does."""
    listing = getattr(catalog, "relation_vocabulary", None)
    if listing is None:
        return None
    phrases = listing()
    stated = getattr(catalog, "stated_vocabulary", None)
    if stated_only and stated is not None:
        phrases = stated() or phrases
    key = (id(catalog), id(encoder), stated_only)
    with _VOCAB_LOCK:
        found = _VOCABULARIES.get(key)
        if found is None or found[0] is not phrases:
            found = _VOCABULARIES[key] = (phrases, RelationVocabulary(phrases, encoder))
        return found[1]


__all__ = ["CANDIDATES", "RelationVocabulary", "vocabulary_of"]
