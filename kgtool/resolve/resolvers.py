"""The resolvers: small registered parts that propose pairs of entities to merge.

Each resolver is a class registered by name in RESOLVERS (kgtool.core.registry,
the extractor/scorer style): its constructor's keyword arguments are its settings
(`min_score`, and for `embedding` the embedder), `pairs(views, focus)` proposes
scored pairs and `score(a, b)` scores one pair. Proposals at or above
`min_score - near` are returned; the planner (kgtool.resolve.plan) merges those
at or above `min_score` that no guard forbids, and keeps the rest as near misses.

- `id`: the same Wikidata id or IRI (given as an id, a qid or an alias).
- `exact`: a normalised name or alias in common.
- `fuzzy`: RapidFuzz string similarity of names and aliases (edit distance and
  word-order-insensitive), for spelling variants.
- `embedding`: cosine of MiniLM name embeddings, lowered when the relation
  profiles share nothing.
- `evidence` (the default): the candidates of `id`, `exact` and `fuzzy` (blocking),
  scored by Fellegi-Sunter agreement weights over ids, stated aliases, names, kinds and
  shared neighbours (kgtool.resolve.evidence); merges only on evidence beyond the name.
  The others merge on names alone (with the guards) and are there to be chosen.

`focus`, when given, limits proposals to pairs with at least one entity in it
(ingest resolves what it just wrote against the whole store).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable, Iterator

import numpy as np

from kgtool.core.registry import Registry
from kgtool.core.text import normalize
from kgtool.errors import require
from kgtool.resolve import CHOICES  # noqa: F401  (re-exported: what `--resolve NAME` accepts)
from kgtool.resolve.base import Candidate, EntityView, profile_agreement
from kgtool.resolve.names import fold
from kgtool.resolve.evidence import (MERGE_WEIGHT, MIN_EVIDENCE, NAME_LEVELS, SUGGEST_WEIGHT, Context, Evidence,
                                     corroborated, decide)

NEAR = 0.15  # how far under min_score a pair is still reported as a near miss


class Resolver:
    name = "resolver"
    default_min_score = 1.0
    near = NEAR  # how far under min_score a pair is still returned (a near miss)
    describe = True  # False when only the pairs are wanted (a blocker of the evidence resolver)

    def __init__(self, *, min_score: float | None = None):
        self.min_score = self.default_min_score if min_score is None else float(min_score)

    def score(self, a: EntityView, b: EntityView) -> float:  # pragma: no cover - interface
        raise NotImplementedError

    def reason(self, a: EntityView, b: EntityView, score: float) -> str:
        return f"{self.name} {score:.3f}"

    def pairs(self, views: list[EntityView], focus: set[str] | None = None) -> Iterator[Candidate]:
        """Scored pairs at or above min_score - NEAR; the default compares every pair (small inputs)."""
        floor = self.min_score - self.near
        for i, a in enumerate(views):
            for b in views[i + 1:]:
                if focus is not None and a.id not in focus and b.id not in focus:
                    continue
                s = self.score(a, b)
                if s >= floor:
                    yield Candidate(a.id, b.id, s, self.name, self.reason(a, b, s))

    def _blocked(self, views: list[EntityView], focus: set[str] | None,
                 keys_of: Callable[[EntityView], Iterable[str]]) -> Iterator[Candidate]:
        """Candidates among entities that share a blocking key (no other pair is compared)."""
        blocks: dict[str, list[EntityView]] = defaultdict(list)
        for v in views:
            for key in keys_of(v):
                blocks[key].append(v)
        for a, b in _blocked_pairs(blocks.values(), focus):
            c = self._candidate(a, b)
            if c:
                yield c

    def _name_hits(self, hits: Iterable[tuple[int, int]], owner: list[int], views: list[EntityView],
                   seen: set[tuple[int, int]]) -> Iterator[Candidate]:
        """Candidates for the entity pairs behind matching names (indices into `owner`), each pair once."""
        for x, y in hits:
            i, j = sorted((owner[x], owner[y]))
            if i == j or (i, j) in seen:
                continue
            seen.add((i, j))
            cand = self._candidate(views[i], views[j])
            if cand:
                yield cand

    def _candidate(self, a: EntityView, b: EntityView) -> Candidate | None:
        s = self.score(a, b)
        if s < self.min_score - self.near:
            return None
        return Candidate(a.id, b.id, s, self.name, self.reason(a, b, s) if self.describe else "")


def _blocked_pairs(blocks: Iterable[list[EntityView]], focus: set[str] | None) -> Iterator[tuple[EntityView, EntityView]]:
    seen: set[tuple[str, str]] = set()
    for members in blocks:
        for i, a in enumerate(members):
            for b in members[i + 1:]:
                if a.id == b.id or (focus is not None and a.id not in focus and b.id not in focus):
                    continue
                key = (a.id, b.id) if a.id < b.id else (b.id, a.id)
                if key not in seen:
                    seen.add(key)
                    yield a, b


class IdResolver(Resolver):
    """The same Wikidata id or IRI, wherever the entity carries it."""

    name = "id"
    default_min_score = 1.0

    def score(self, a: EntityView, b: EntityView) -> float:
        if a.wikidata and a.wikidata == b.wikidata:
            return 1.0
        return 1.0 if a.iris & b.iris else 0.0

    def reason(self, a, b, score):
        return f"same external id {a.wikidata or sorted(a.iris & b.iris)[0]}" if score else "no shared id"

    def pairs(self, views, focus=None):
        return self._blocked(views, focus, lambda v: ([v.wikidata] if v.wikidata else []) + sorted(v.iris))


class ExactResolver(Resolver):
    """A normalised name or alias in common: 1.0 name = name, 0.97 a name is the other's alias,
    0.9 only an alias in common (a near miss: two songs called "Burn" share their short form)."""

    name = "exact"
    default_min_score = 0.95

    def score(self, a: EntityView, b: EntityView) -> float:
        na, nb = normalize(a.name), normalize(b.name)
        if na and na == nb:
            return 1.0
        ka, kb = a.keys, b.keys
        if (na and na in kb) or (nb and nb in ka):
            return 0.97
        return 0.9 if ka & kb else 0.0

    def reason(self, a, b, score):
        shared = sorted(a.keys & b.keys)
        return f"same normalised name {shared[0]!r}" if shared else "no shared name"

    def pairs(self, views, focus=None):
        return self._blocked(views, focus, lambda v: v.keys)


class FuzzyResolver(Resolver):
    """RapidFuzz similarity of normalised names: each entity's primary name against the other's
    names and aliases (two aliases alike say little: short forms are shared), by edit-distance
    ratio, and word-order-insensitively where one is written "Last, First"; in [0, 1]."""

    name = "fuzzy"
    default_min_score = 0.90  # the best F1 on tests/data/resolve/pairs.jsonl (`kgtool resolve pairs`)

    def __init__(self, *, min_score: float | None = None):
        super().__init__(min_score=min_score)
        self._fuzz = require("rapidfuzz", "resolve", "the fuzzy entity resolver")

    def _ratio(self, x: str, y: str) -> float:
        fuzz = self._fuzz.fuzz
        if "," in x or "," in y:  # "Gore, Al": the words of a name in another order
            return max(fuzz.ratio(x, y), fuzz.token_sort_ratio(x.replace(",", " "), y.replace(",", " "))) / 100.0
        return fuzz.ratio(x, y) / 100.0

    def _scored(self, a: EntityView, b: EntityView):
        return ((self._ratio(x, y), x, y) for x, y in name_pairs(a, b))

    def score(self, a: EntityView, b: EntityView) -> float:
        return max((s for s, _x, _y in self._scored(a, b)), default=0.0)

    def reason(self, a, b, score):
        best = max(self._scored(a, b), default=(0.0, "", ""))
        return f"names {best[1]!r} ~ {best[2]!r} ({score:.3f})"

    def pairs(self, views, focus=None):
        # the names of the focus (every entity without one) against every name, in RapidFuzz's
        # C++ loop, keeping those over the floor; each entity pair is then scored on all its names
        process = self._fuzz.process
        names, owner = _name_table(views)
        rows = [k for k, i in enumerate(owner) if focus is None or views[i].id in focus]
        if len(names) < 2 or not rows:
            return
        cutoff = max(0.0, (self.min_score - NEAR) * 100)
        fuzz = self._fuzz.fuzz
        commas = [k for k, name in enumerate(names) if "," in name]
        reordered = [k.replace(",", " ") for k in names]
        seen: set[tuple[int, int]] = set()
        step = 2000
        for start in range(0, len(rows), step):
            block = rows[start:start + step]
            # edit distance everywhere; word order only against or from "Last, First" names
            searches = [(block, list(range(len(names))), names, fuzz.ratio),
                        ([k for k in block if "," in names[k]], list(range(len(names))), reordered, fuzz.token_sort_ratio),
                        (block, commas, reordered, fuzz.token_sort_ratio)]
            for queries, choices, texts, scorer in searches:
                if not queries or not choices:
                    continue
                matrix = process.cdist([texts[k] for k in queries], [texts[k] for k in choices], scorer=scorer,
                                       score_cutoff=cutoff, dtype=np.uint8, workers=1)
                hits = ((queries[r], choices[c]) for r, c in zip(*(x.tolist() for x in np.nonzero(matrix))))
                yield from self._name_hits(hits, owner, views, seen)


def name_pairs(a: EntityView, b: EntityView):
    """(a's name, b's name) pairs a graded resolver compares: each primary name against all the other's."""
    na, nb = normalize(a.name), normalize(b.name)
    seen = set()
    for x, y in [(na, k) for k in sorted(b.keys)] + [(k, nb) for k in sorted(a.keys)]:
        if x and y and (x, y) not in seen:
            seen.add((x, y))
            yield x, y


def _name_table(views: list[EntityView]) -> tuple[list[str], list[int]]:
    """Every normalised name of every view, and the index of the view it belongs to."""
    names: list[str] = []
    owner: list[int] = []
    for i, v in enumerate(views):
        for key in sorted(v.keys):
            names.append(key)
            owner.append(i)
    return names, owner


class EmbeddingResolver(Resolver):
    """Cosine of MiniLM embeddings of the names (best over names and aliases), minus
    `profile_penalty` when both entities have facts and their relation profiles share none."""

    name = "embedding"
    default_min_score = 0.80  # its best F1 on tests/data/resolve/pairs.jsonl, precision 0.989

    def __init__(self, *, min_score: float | None = None, embedder=None, profile_penalty: float = 0.1):
        super().__init__(min_score=min_score)
        self._embedder = embedder
        self.profile_penalty = float(profile_penalty)
        self._vectors: dict[str, np.ndarray] = {}

    @property
    def embedder(self):
        if self._embedder is None:
            from kgtool.models.embed import get_embedder

            self._embedder = get_embedder("minilm")
        return self._embedder

    def _embed(self, texts: Iterable[str]) -> None:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            for text, vec in zip(missing, self.embedder.encode(missing)):
                self._vectors[text] = np.asarray(vec, dtype=np.float32)

    def prepare(self, views: Iterable[EntityView]) -> None:
        """Embed every name of these views in one model call (scoring pairs one by one then reads them)."""
        self._embed(k for v in views for k in sorted(v.keys))

    def _cosine(self, a: EntityView, b: EntityView) -> float:
        self._embed([*a.keys, *b.keys])
        return max((float(self._vectors[x] @ self._vectors[y]) for x, y in name_pairs(a, b)), default=0.0)

    def score(self, a: EntityView, b: EntityView) -> float:
        cos = self._cosine(a, b)
        agrees = profile_agreement(a, b) > 0
        return round(cos if agrees else cos - self.profile_penalty, 6)

    def reason(self, a, b, score):
        return f"name embedding cosine, relation profiles {'agree' if profile_agreement(a, b) > 0 else 'differ'} ({score:.3f})"

    def pairs(self, views, focus=None):
        names, owner = _name_table(views)
        rows = [k for k, i in enumerate(owner) if focus is None or views[i].id in focus]
        if len(names) < 2 or not rows:
            return
        self._embed(names)
        matrix = np.stack([self._vectors[k] for k in names])
        floor = self.min_score - NEAR
        seen: set[tuple[int, int]] = set()
        step = 1024
        for start in range(0, len(rows), step):
            block = rows[start:start + step]
            sims = matrix[block] @ matrix.T
            hits = ((block[r], c) for r, c in zip(*(x.tolist() for x in np.nonzero(sims >= floor))))
            yield from self._name_hits(hits, owner, views, seen)


class EvidenceResolver(Resolver):
    """Candidates from shared ids, names and aliases and RapidFuzz similarity (blocking), each scored by
    kgtool.resolve.evidence (bits of agreement); `min_score` is the merge weight in bits, and
    `guard` adds the contradictions only the whole store shows (one-valued relations, rejections)."""

    name = "evidence"
    default_min_score = MERGE_WEIGHT
    near = MERGE_WEIGHT - SUGGEST_WEIGHT
    suggests = True  # its near misses are suggestions for a person (kgtool.resolve.review)

    def __init__(self, *, min_score: float | None = None, rejected=()):
        super().__init__(min_score=min_score)
        self._fuzzy = FuzzyResolver(min_score=NAME_LEVELS[-1][0] + NEAR)
        self.blockers = [IdResolver(), ExactResolver(min_score=1.0), self._fuzzy]
        for blocker in self.blockers:
            blocker.describe = False
        self.blockers.append(fold)  # names that are one once accents are folded
        self.rejected = list(rejected)
        self.context: Context | None = None
        self._fixed = False

    def prepare(self, views: Iterable[EntityView]) -> None:
        """Term frequencies and one-valued relations from these views (a pair file's every side)."""
        self.context, self._fixed = Context(views, self.rejected), True

    def _context(self, views) -> Context:
        if self.context is None or not self._fixed:
            self.context = Context(views, self.rejected)
        return self.context

    def guard(self, a: EntityView, b: EntityView) -> str | None:
        return (self.context or Context([a, b], self.rejected)).guard(a, b)

    def evidence(self, a: EntityView, b: EntityView, name_similarity: float | None = None) -> Evidence:
        context = self.context or self._context([a, b])
        return context.score(a, b, self._fuzzy.score(a, b) if name_similarity is None else name_similarity)

    def _verdict(self, ev: Evidence) -> float:
        # short of the evidence beyond the name, a pair stays under the merge weight whatever its total
        return ev.weight if decide(ev) or ev.weight < self.min_score else round(self.min_score - 0.01, 3)

    def score(self, a: EntityView, b: EntityView) -> float:
        return self._verdict(self.evidence(a, b))

    def reason(self, a, b, score):
        return self._reason(self.evidence(a, b))

    def _reason(self, ev: Evidence) -> str:
        if not decide(ev) and ev.beyond < MIN_EVIDENCE:
            ev.against.append(f"under {MIN_EVIDENCE:.0f} bits beyond the name")
        elif not corroborated(ev):
            ev.against.append("one fact in common and relations that differ (two kinds of thing?)")
        return ev.reason()

    def _folded(self, views, focus) -> Iterator[Candidate]:
        blocks: dict[str, list[EntityView]] = defaultdict(list)
        for v in views:
            for key in {fold(k) for k in v.keys}:
                blocks[key].append(v)
        for a, b in _blocked_pairs((m for m in blocks.values() if len(m) > 1), focus):
            yield Candidate(a.id, b.id, 1.0, "fold", "")

    def pairs(self, views, focus=None):
        self._context(views)
        by_id = {v.id: v for v in views}
        seen: set[tuple[str, str]] = set()
        floor = self.min_score - self.near
        for blocker in self.blockers:
            for cand in blocker.pairs(views, focus) if blocker is not fold else self._folded(views, focus):
                key = cand.pair()
                if key in seen:
                    continue
                seen.add(key)
                a, b = by_id[key[0]], by_id[key[1]]
                ev = self.evidence(a, b, cand.score if blocker is self._fuzzy else None)
                s = self._verdict(ev)
                if s >= floor:
                    yield Candidate(a.id, b.id, s, self.name, self._reason(ev))


RESOLVERS = Registry("resolver")
RESOLVERS.register("id", IdResolver)
RESOLVERS.register("exact", ExactResolver)
RESOLVERS.register("fuzzy", FuzzyResolver)
RESOLVERS.register("embedding", EmbeddingResolver)
RESOLVERS.register("evidence", EvidenceResolver)


def build(names: str | Iterable[str], registry: Registry | None = None, **settings) -> list[Resolver]:
    """The resolvers for a `--resolve` choice: "exact" -> [id, exact]; "none" -> []; settings go to the last."""
    registry = registry or RESOLVERS
    chosen = [names] if isinstance(names, str) else list(names)
    if chosen == ["none"]:
        return []
    out: list[Resolver] = []
    if "id" not in chosen:
        out.append(registry.create("id"))
    for i, name in enumerate(chosen):
        out.append(registry.create(name, **(settings if i == len(chosen) - 1 else {})))
    return out
