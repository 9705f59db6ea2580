"""Named scorers for one retrieval hop, and the sufficiency check in Python.

A hop reads its candidate pool from Neo4j (rows with fact_id, head, relation,
tail, evidence), runs the scorers named in the method's configuration over the
pool, and writes the scores back; p and N_eff are then computed in Cypher.
`sufficiency` is the reference the Cypher computation is tested against.

Every scorer has one method, ``score(query, candidates) -> np.ndarray`` with
one float per candidate, in pool order. Candidates may be mappings (Neo4j
records, dicts) or objects with attributes (``CandidateFact``).

Scorers are looked up by name in a `ScorerRegistry` instance; build one with
`default_registry()` so nothing registered in one place (or test) leaks into
another. Heavy model packages are imported only when a scorer first needs them.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
from rank_bm25 import BM25Okapi

from kgtool.core.registry import Registry
from kgtool.core.text import words
from kgtool.core.types import Embedder
from kgtool.errors import ConfigError, InputError, KgToolError, require


# Small on purpose: question words and glue words that appear in nearly every
# hop query ("Who is the ... of ...") and would otherwise match every sentence.
def tokenize(text: str | None, *, drop_stopwords: bool = True) -> list[str]:
    """The words lexical scorers index (kgtool.core.text.words)."""
    return words(text, drop_stopwords=drop_stopwords)


def field_of(candidate: Any, name: str, default: Any = "") -> Any:
    """Read a field from a mapping-like row or an attribute-bearing object."""
    # Duck-typed rather than isinstance(Mapping): this runs once per candidate
    # per scorer, and neo4j Records and dicts both have .get.
    get = getattr(candidate, "get", None)
    value = get(name, default) if get is not None else getattr(candidate, name, default)
    return default if value is None else value


class Scorer(Protocol):
    def score(self, query: str, candidates: Sequence[Any]) -> np.ndarray: ...


# --------------------------------------------------------------------------- BM25


class _PoolBM25(BM25Okapi):
    """BM25Okapi for the tiny pool of one hop: non-negative IDF, query-only index.

    IDF: rank-bm25's Okapi IDF, log((N - df + 0.5) / (df + 0.5)), is zero at
    df = N/2 and negative above it, and the library swaps negatives for
    epsilon * mean IDF. In a hop's pool that breaks down: with two sentences
    every word found in one of them gets IDF 0 (all scores 0), and with one
    sentence, or identical ones, the mean is negative, so a sentence sharing
    the query's words scores below one sharing none. We use the Lucene form
    log(1 + (N - df + 0.5) / (df + 0.5)) instead: always positive and still
    decreasing in df, so rarer query words weigh more and a matching word never
    lowers a score.

    Speed: only the query's words can contribute to a score, so the index
    counts just those (in per-sentence token tuples the caller caches) and
    scores with numpy; rank-bm25's own indexing of every word of every sentence
    took most of the time of a hop. Lengths are full sentence lengths, so the
    scores equal rank-bm25's (k1, b, length normalisation unchanged).
    """

    def __init__(self, docs: Sequence[tuple[str, ...]], terms: Sequence[str], k1: float, b: float):
        self.terms = list(terms)
        super().__init__(docs, k1=k1, b=b)

    def _initialize(self, corpus: Sequence[tuple[str, ...]]) -> dict[str, int]:
        self.corpus_size = len(corpus)
        self.doc_len = np.array([len(doc) for doc in corpus], dtype=float)
        self.avgdl = float(self.doc_len.mean())
        self.tf = np.array(
            [[doc.count(t) for t in self.terms] for doc in corpus], dtype=float
        ).reshape(len(corpus), len(self.terms))
        return dict(zip(self.terms, (self.tf > 0).sum(axis=0).tolist()))

    def _calc_idf(self, nd: dict[str, int]) -> None:
        n = self.corpus_size
        self.idf = {word: math.log1p((n - df + 0.5) / (df + 0.5)) for word, df in nd.items()}
        self.average_idf = sum(self.idf.values()) / len(self.idf) if self.idf else 0.0

    def get_scores(self, query: Sequence[str]) -> np.ndarray:
        wanted = set(query)
        cols = [i for i, t in enumerate(self.terms) if t in wanted]
        tf = self.tf[:, cols]
        idf = np.array([self.idf[self.terms[i]] for i in cols])
        norm = self.k1 * (1.0 - self.b + self.b * self.doc_len / self.avgdl)
        return (idf * tf * (self.k1 + 1.0) / (tf + norm[:, None])).sum(axis=1)


class BM25Scorer:
    """BM25 of each candidate's evidence sentence against the hop query.

    The index is rebuilt per call because every hop has its own pool; token
    lists are cached per sentence, since the same evidence recurs across hops.
    """

    def __init__(self, k1: float = 1.5, b: float = 0.75, cache_size: int = 50_000):
        self.k1 = k1
        self.b = b
        self.cache_size = cache_size
        self._tokens: dict[str, tuple[str, ...]] = {}

    def _doc(self, text: str) -> tuple[str, ...]:
        doc = self._tokens.get(text)
        if doc is None:
            if len(self._tokens) >= self.cache_size:
                self._tokens.clear()
            doc = self._tokens[text] = tuple(tokenize(text))
        return doc

    def score(self, query: str, candidates: Sequence[Any]) -> np.ndarray:
        docs = [self._doc(str(field_of(c, "evidence"))) for c in candidates]
        # A repeated query word should not count twice in a one-line question.
        terms = list(dict.fromkeys(tokenize(query)))
        if not terms or not any(docs):
            # Nothing to match (and BM25 divides by the mean sentence length).
            return np.zeros(len(docs), dtype=float)
        return _PoolBM25(docs, terms, k1=self.k1, b=self.b).get_scores(terms)


# ----------------------------------------------------------- relation similarity


class RelationSimilarityScorer:
    """Cosine between the query (or relation phrases) and each candidate's relation.

    With ``variants`` (C2RAG's relation variants of a constraint, given here or
    per call) the score is the best cosine over the variants, S_rel; without
    them the query text itself is compared with each relation label.
    """

    def __init__(self, embedder: Embedder, variants: Sequence[str] | None = None):
        self.embedder = embedder
        self.variants = list(variants) if variants else None
        self._vectors: dict[str, np.ndarray] = {}

    def _relation_vectors(self, labels: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(label for label in labels if label not in self._vectors))
        if missing:
            for label, vector in zip(missing, _unit_rows(self.embedder.encode(missing))):
                self._vectors[label] = vector
        return np.stack([self._vectors[label] for label in labels])

    def score(
        self, query: str, candidates: Sequence[Any], *, variants: Sequence[str] | None = None
    ) -> np.ndarray:
        if not candidates:
            return np.zeros(0, dtype=float)
        targets = list(variants) if variants else self.variants
        # Variants are relation phrases and recur, so they share the label cache;
        # free-form queries do not recur and are encoded afresh.
        probe = self._relation_vectors(targets) if targets else _unit_rows(self.embedder.encode([query]))
        labels = [str(field_of(c, "relation")) for c in candidates]
        sims = self._relation_vectors(labels) @ probe.T
        return sims.max(axis=1).astype(float)


def _unit_rows(matrix: Any) -> np.ndarray:
    # Embedders promise unit rows; renormalising is cheap insurance against one that does not.
    rows = np.atleast_2d(np.asarray(matrix, dtype=float))
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0.0, 1.0, norms)


# ------------------------------------------------------------------ token coverage


def token_coverage(mention: str, name: str) -> float:
    """C2RAG's S_tok: the share of the mention's distinct tokens found in the name.

    Tokens are lowercased words with accents folded. Stopwords are left out of
    the mention (so "University of Oxford" needs "university" and "oxford"),
    unless the mention is nothing but stopwords ("The Who"). Every word of the
    name counts. The value is 1.0 when the name contains all of the mention's
    tokens, however many other words the name has, and 0.0 for an empty mention.
    """
    wanted = set(tokenize(mention)) or set(tokenize(mention, drop_stopwords=False))
    if not wanted:
        return 0.0
    have = set(tokenize(name, drop_stopwords=False))
    return len(wanted & have) / len(wanted)


class TokenCoverageScorer:
    """Best token coverage of the query (an anchor mention) by a candidate's names.

    Looks at every string in ``fields`` that a candidate has: entity rows bring
    name and aliases (a list), fact rows bring head and tail.
    """

    def __init__(self, fields: Sequence[str] = ("name", "aliases", "head", "tail")):
        self.fields = tuple(fields)

    def _names(self, candidate: Any) -> list[str]:
        names: list[str] = []
        for name in self.fields:
            value = field_of(candidate, name, None)
            if isinstance(value, str):
                names.append(value)
            elif isinstance(value, Sequence):
                names.extend(v for v in value if isinstance(v, str))
        return names

    def score(self, query: str, candidates: Sequence[Any]) -> np.ndarray:
        return np.array(
            [max((token_coverage(query, n) for n in self._names(c)), default=0.0) for c in candidates],
            dtype=float,
        )


# ------------------------------------------------------------------ cross-encoder


class CrossEncoderScorer:
    """A cross-encoder reranker (FlagEmbedding's FlagReranker) over (query, evidence).

    The model loads on the first call, not in the constructor. Scores are
    squashed to 0..1 with a sigmoid unless ``normalize=False``. A candidate
    without evidence is scored on its linearised triple; ``include_triple``
    puts the triple in front of the evidence for every candidate, which is
    closer to C2RAG's concatenated input.
    """

    def __init__(
        self,
        model: str = "BAAI/bge-reranker-v2-m3",
        *,
        use_fp16: bool = False,
        devices: str | list[str] | None = None,
        batch_size: int = 32,
        max_length: int = 512,
        normalize: bool = True,
        include_triple: bool = False,
    ):
        self.model = str(model)
        self.use_fp16 = use_fp16
        self.devices = devices
        self.batch_size = batch_size
        self.max_length = max_length
        self.normalize = normalize
        self.include_triple = include_triple
        self._reranker: Any = None

    def _load(self) -> Any:
        if self._reranker is None:
            flag = require("FlagEmbedding", "bge", "the cross-encoder reranker")
            try:
                self._reranker = flag.FlagReranker(
                    self.model,
                    use_fp16=self.use_fp16,
                    devices=self.devices,
                    batch_size=self.batch_size,
                    max_length=self.max_length,
                    normalize=self.normalize,
                )
            except (OSError, ValueError) as exc:
                raise ConfigError(
                    f"cannot load the reranker model {self.model!r} ({exc}). Point the "
                    "`reranker` setting at a local model directory, or allow the model "
                    "hub once so the model is cached."
                ) from exc
        return self._reranker

    def passage(self, candidate: Any) -> str:
        triple = " ".join(
            str(field_of(candidate, f)) for f in ("head", "relation", "tail") if field_of(candidate, f)
        )
        evidence = str(field_of(candidate, "evidence")).strip()
        if self.include_triple and evidence:
            return f"{triple}. {evidence}"
        return evidence or triple

    def score(self, query: str, candidates: Sequence[Any]) -> np.ndarray:
        if not candidates:
            return np.zeros(0, dtype=float)
        pairs = [(query, self.passage(c)) for c in candidates]
        scores = self._load().compute_score(pairs, normalize=self.normalize)
        return np.asarray(scores, dtype=float).reshape(-1)


# -------------------------------------------------------------------- sufficiency


def sufficiency(scores: Sequence[float] | np.ndarray, eps: float = 1e-6) -> tuple[np.ndarray, float]:
    """C2RAG's sufficiency distribution p and effective candidate count N_eff.

    For the scores z_1..z_n of one hop's pool (C2RAG: cross-encoder scores of
    the top-K_s candidates):

        p_c   = (z_c - min_j z_j + eps) / sum_k (z_k - min_j z_j + eps)      (Eq. 7)
        N_eff = 1 / sum_c p_c ** 2                                          (Eq. 8)

    Subtracting the minimum makes p independent of any shift of the scores,
    and eps keeps the lowest candidate above zero and a pool of equal scores
    uniform. Always 1 <= N_eff <= n: n when all scores are equal, near 1 when
    one score stands out; max(p) >= 1 / N_eff, so accepting a hop when
    N_eff <= gamma guarantees a candidate with p >= 1 / gamma. Because the
    lowest candidate always gets p close to 0, a pool of two is nearly always
    resolved unless its scores are within a few eps of each other.

    An empty pool gives (empty array, inf), so it never passes the check.
    """
    if eps <= 0:
        raise KgToolError(f"eps must be positive, got {eps}")
    z = np.asarray(scores, dtype=float).reshape(-1)
    if z.size == 0:
        return np.zeros(0, dtype=float), math.inf
    if not np.all(np.isfinite(z)):
        bad = np.flatnonzero(~np.isfinite(z)).tolist()
        raise InputError(f"sufficiency needs finite scores; positions {bad} are NaN or infinite")
    shifted = z - z.min() + eps
    p = shifted / shifted.sum()
    return p, float(1.0 / np.square(p).sum())


# ---------------------------------------------------------------------- registry


SCORERS = Registry("scorer")
SCORERS.register("bm25", BM25Scorer, description="BM25 over the candidate's evidence sentence (CARE's selector pool)")
SCORERS.register("relation", RelationSimilarityScorer,
                 description="max cosine between the candidate's relation and the query's relation variants")
SCORERS.register("token_coverage", TokenCoverageScorer,
                 description="share of a mention's tokens found in the candidate entity's name (C2RAG S_tok)")
SCORERS.register("cross_encoder", CrossEncoderScorer,
                 description="bge-reranker-v2-m3 (FlagEmbedding) relevance of the candidate to the query")


def default_registry() -> Registry:
    """A fresh copy of the built-in scorers: what one registers there stays there."""
    return SCORERS.copy()
