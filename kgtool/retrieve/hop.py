"""The hop retrieval core shared by every method.

A hop is: one named Cypher read of the current entity's candidate pool
(`hop/candidates`, scoped to a set of edits), the named Python scorers over
that pool, and one Cypher write that records the scores and computes p and
N_eff (`hop/record_step`, see kgtool.reason.trace).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from kgtool.core.registry import Registry
from kgtool.core.scope import Scope
from kgtool.core.types import CandidateFact
from kgtool.errors import ConfigError
from kgtool.graph.db import Database
from kgtool.retrieve.scoring import default_registry


def candidate_from_row(row: dict) -> CandidateFact:
    """A fact as a stored read returns it; every such read says whether the fact is stated, so a
    candidate read back from the trace (a reselection, a chain) keeps where its fact came from."""
    return CandidateFact(
        fact_id=row["fact_id"], head_id=row["head_id"], head=row["head"], relation=row["relation"],
        tail_id=row["tail_id"], tail=row["tail"], evidence=row.get("evidence") or "",
        relation_id=row.get("relation_id") or row.get("relation_key"), direction=row.get("direction", "out"),
        rank=row.get("rank") or 0, score=row.get("score") or 0.0, stated=row["stated"] is not False,
    )


def read_pools(db: Database, session, entity_ids: Sequence[str], scope: Scope,
               per_group: int | None = None) -> tuple[dict[str, list[CandidateFact]], set[str]]:
    """The pools of several entities in one Cypher read (`hop/candidates`).

    With `per_group`, at most that many facts per (relation, direction) are
    returned; the second value names the entities whose pool was cut short.
    Without a session the read opens its own.
    """
    params = dict(entity_ids=list(entity_ids), per_group=per_group, **scope.params())
    rows = db.run_in(session, "hop/candidates", **params) if session is not None else db.read("hop/candidates", **params)
    pools: dict[str, list[CandidateFact]] = {e: [] for e in entity_ids}
    cut: set[str] = set()
    for row in rows:
        facts = row["facts"]
        # every field is present in these rows, so the constructor is called directly: a planner's
        # beam read brings a thousand facts per answer, and candidate_from_row's fallbacks show
        pools[row["entity_id"]] = [
            CandidateFact(f["fact_id"], f["head_id"], f["head"], f["relation"], f["tail_id"], f["tail"],
                          f["evidence"] or "", f["relation_id"] or f["relation_key"], f["direction"],
                          stated=f["stated"] is not False)
            for f in facts
        ]
        if per_group is not None and any(f["group_size"] > per_group for f in facts):
            cut.add(row["entity_id"])
    return pools, cut


def read_pool(db: Database, session, entity_id: str, scope: Scope, memo: dict | None = None) -> list[CandidateFact]:
    """An entity's whole candidate pool.

    `memo` (entity id -> pool) shares reads within one answer, so the planner's
    look-ahead and the hop itself read each neighbourhood once.
    """
    if memo is None or entity_id not in memo:
        facts = read_pools(db, session, [entity_id], scope)[0][entity_id]
        if memo is None:
            return facts
        memo[entity_id] = facts
    # copies: ranking sets rank and scores on the candidates
    return [c.copy() for c in memo[entity_id]]


class HopRetriever:
    """Read a pool with Cypher and rank it with named scorers (BM25 by default, as CARE)."""

    def __init__(self, db: Database, *, scorers: Sequence[str] = ("bm25",), weights: Sequence[float] | None = None,
                 registry: Registry | None = None, scorer_options: dict[str, dict] | None = None):
        self.db = db
        registry = registry or default_registry()
        options = scorer_options or {}
        self.scorer_names = tuple(scorers)
        self.scorers = {name: registry.create(name, **options.get(name, {})) for name in scorers}
        self.weights = tuple(weights) if weights is not None else (1.0,) * len(scorers)
        if len(self.weights) != len(self.scorers):
            raise ConfigError("give one weight per scorer")

    def pool(self, session, entity_id: str, scope: Scope, memo: dict | None = None) -> list[CandidateFact]:
        return read_pool(self.db, session, entity_id, scope, memo)

    def rank(self, query: str, pool: Sequence[CandidateFact], top_k: int | None) -> list[CandidateFact]:
        """Score the pool; return the top_k (all when None), best first, with rank and scores set."""
        if not pool:
            return []
        total = np.zeros(len(pool))
        per_scorer = {}
        for (name, scorer), weight in zip(self.scorers.items(), self.weights):
            values = np.asarray(scorer.score(query, pool), dtype=float)
            per_scorer[name] = values
            total += weight * values
        order = sorted(range(len(pool)), key=lambda i: (-total[i], pool[i].fact_id))
        if top_k is not None:
            order = order[:top_k]
        ranked = []
        for rank, i in enumerate(order, start=1):
            cand = pool[i]
            cand.rank = rank
            cand.score = float(total[i])
            cand.scores = {name: float(v[i]) for name, v in per_scorer.items()}
            ranked.append(cand)
        return ranked
