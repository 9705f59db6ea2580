"""Passage retrieval: one Cypher read of full-text candidates, then the named scorers.

The same shape as a hop (kgtool.retrieve.hop): the database proposes a pool
(Lucene over Passage title and text, scoped like facts), Python scorers rank
it, and a method records the ranked passages as a Step whose candidates are
Passages (kgtool.reason.trace.candidate_row works on PassageHit).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from kgtool.core.registry import Registry
from kgtool.core.scope import Scope
from kgtool.core.text import words
from kgtool.core.types import PassageHit
from kgtool.graph.db import Database
from kgtool.retrieve.scoring import default_registry


def lucene_query(text: str) -> str:
    """The question's content words, as a plain OR query: nothing of the text reaches Lucene's syntax."""
    terms = list(dict.fromkeys(words(text)))
    return " ".join(terms)


def search_passages(db: Database, session, query: str, scope: Scope, limit: int = 50) -> list[PassageHit]:
    """Full-text candidates for `query`, best Lucene score first (empty when the query has no content word)."""
    text = lucene_query(query)
    if not text:
        return []
    params = {"query": text, "limit": int(limit), "cases": scope.params()["cases"],
              "batches": scope.params()["batches"]}
    rows = db.run_in(session, "passages/search", **params) if session is not None else db.read("passages/search", **params)
    return [PassageHit(r["passage_id"], r["title"] or "", r["text"] or "", scores={"fulltext": float(r["fulltext"])})
            for r in rows]


class PassageRetriever:
    """Full-text pool, ranked by named scorers (BM25 over the passage text by default)."""

    def __init__(self, db: Database, *, scorers: Sequence[str] = ("bm25",), weights: Sequence[float] | None = None,
                 registry: Registry | None = None, pool_size: int = 50, scorer_options: dict[str, dict] | None = None):
        registry = registry or default_registry()
        options = scorer_options or {}
        self.db = db
        self.pool_size = pool_size
        self.scorers = {name: registry.create(name, **options.get(name, {})) for name in scorers}
        self.weights = tuple(weights) if weights is not None else (1.0,) * len(self.scorers)

    def retrieve(self, session, query: str, scope: Scope, k: int | None) -> list[PassageHit]:
        """The top k passages for `query` (all of the pool when k is None), with rank and scores set."""
        pool = search_passages(self.db, session, query, scope, self.pool_size)
        if not pool:
            return []
        total = np.zeros(len(pool))
        for (name, scorer), weight in zip(self.scorers.items(), self.weights):
            values = np.asarray(scorer.score(query, pool), dtype=float)
            total += weight * values
            for hit, value in zip(pool, values):
                hit.scores[name] = float(value)
        order = sorted(range(len(pool)), key=lambda i: (-total[i], pool[i].passage_id))
        ranked = []
        for rank, i in enumerate(order[:k] if k is not None else order, start=1):
            hit = pool[i]
            hit.rank, hit.score = rank, float(total[i])
            ranked.append(hit)
        return ranked
