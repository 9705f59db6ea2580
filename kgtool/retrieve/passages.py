"""Passage retrieval: Cypher pools (full-text, vector, linked), then the named scorers.

The same shape as a hop (kgtool.retrieve.hop): the database proposes a pool,
scoped like facts, Python scorers rank it, and a method records the ranked
passages as a Step whose candidates are Passages (kgtool.reason.trace.candidate_row
works on PassageHit).

Pools (each one Cypher read, cypher/passages/):

- ``fulltext``: Lucene over Passage title and text (the passage_text index);
- ``vector``: nearest neighbours of the query embedding (the passage_embedding
  index; passages are embedded at ingestion, `embed_passages`);
- ``linked``: after a first ranking, the passages of the documents about an
  entity that one of the top `seeds` passages mentions, the bridge a
  multi-hop question crosses ("the performer of Hello Love" -> Hank Snow's page).
- ``walk``: after a first ranking, personalised PageRank over a bounded
  Passage-Entity-Fact subgraph seeded by the ranked pool and by entities: the
  question's linked names and the entities of the facts nearest to the question
  (kgtool.retrieve.walk, kgtool.retrieve.fact_seeds); its score is ``walk``.

Scorers are looked up by name in a scorer registry (`passage_scorers()` adds
``dense`` and ``fulltext`` to the built-in ``bm25`` and ``cross_encoder``).
``fusion="sum"`` adds the weighted raw scores (the default, as before);
``fusion="rrf"`` adds weighted reciprocal ranks, which needs no common scale
between a BM25 score and a cosine.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from kgtool.core.registry import Registry
from kgtool.core.scope import Scope
from kgtool.core.text import words
from kgtool.core.types import Embedder, PassageHit
from kgtool.errors import ConfigError
from kgtool.graph.db import Database
from kgtool.retrieve.scoring import default_registry, field_of
from kgtool.retrieve.stored_vectors import embed_missing, model_name

POOLS = ("fulltext", "vector", "linked", "walk")
WALK_FUSIONS = ("ppr", "rrf")
WALK_SEEDS = ("names", "facts", "both")  # the walk's entity seeds (see PassageRetriever._walk_entities)
WALK_DEFAULTS = {"fusion": "ppr", "seeds": "both", "passage_seeds": "pool", "recognition": "strict"}
# seeds "both" when no near fact touches a linked name: "strict" seeds from the names alone, and with no names
# keeps the first-stage ranking (HippoRAG 2 returns its dense ranking when its filter keeps no fact); "loose"
WALK_RECOGNITION = ("strict", "loose")  # seeds from the plain top facts (the walk before session 39)
WALK_PASSAGE_SEEDS = ("pool", "dense")  # the first-stage pool's scores, or the dense score of every walked passage
FUSIONS = ("sum", "rrf")
RRF_K = 60  # the usual reciprocal-rank constant: ranks past a few dozen barely differ


def lucene_query(text: str) -> str:
    """The question's content words, as a plain OR query: nothing of the text reaches Lucene's syntax; within
    kgtool.core.bounds' query size (no word past MAX_TERM_CHARS, at most MAX_QUERY_TERMS words)."""
    from kgtool.core.bounds import query_terms

    return " ".join(query_terms(words(text)))


def embedding_text(title: str | None, text: str) -> str:
    """What a passage's embedding is computed from: the title names the passage's topic."""
    return f"{title}: {text}" if title else text


def _scope_params(scope: Scope) -> dict:
    params = scope.params()
    return {"cases": params["cases"], "batches": params["batches"]}


def _read(db: Database, session, name: str, **params) -> list[dict]:
    return db.run_in(session, name, **params) if session is not None else db.read(name, **params)


def search_passages(db: Database, session, query: str, scope: Scope, limit: int = 50) -> list[PassageHit]:
    """Full-text candidates for `query`, best Lucene score first (empty when the query has no content word)."""
    text = lucene_query(query)
    if not text:
        return []
    rows = _read(db, session, "passages/search", query=text, limit=int(limit), **_scope_params(scope))
    return [PassageHit(r["passage_id"], r["title"] or "", r["text"] or "", scores={"fulltext": float(r["fulltext"])})
            for r in rows]


def vector_passages(db: Database, session, embedding: Sequence[float], scope: Scope,
                    limit: int = 50) -> list[PassageHit]:
    """The passages whose stored embedding is nearest to `embedding` (cosine), best first."""
    rows = _read(db, session, "passages/vector", embedding=[float(x) for x in embedding], limit=int(limit),
                 **_scope_params(scope))
    return [PassageHit(r["passage_id"], r["title"] or "", r["text"] or "", scores={"dense": float(r["dense"])})
            for r in rows]


def linked_passages(db: Database, session, seed_ids: Sequence[str], scope: Scope) -> list[PassageHit]:
    """Passages of the documents about entities the seeds mention; scores.seed_rank is the seed's position."""
    if not seed_ids:
        return []
    rows = _read(db, session, "passages/linked", seed_ids=list(seed_ids), **_scope_params(scope))
    return [PassageHit(r["passage_id"], r["title"] or "", r["text"] or "",
                       scores={"seed_rank": float(r["seed_rank"])}) for r in rows]


def stored_embeddings(db: Database, session, passage_ids: Sequence[str]) -> dict[str, np.ndarray]:
    """Stored embeddings by passage id (passages without one are left out)."""
    if not passage_ids:
        return {}
    rows = _read(db, session, "passages/embeddings", ids=list(passage_ids))
    return {r["passage_id"]: np.asarray(r["embedding"], dtype=np.float32) for r in rows if r["embedding"]}


def embed_passages(db: Database, embedder: Embedder, *, batch_size: int = 256, progress=None) -> int:
    """Embed every passage without an embedding from this model (idempotent); returns how many were embedded.

    progress(done, total) after each page.
    """
    return embed_missing(db, embedder.encode, model_name(embedder), "passages/count_without_embedding",
                         "passages/without_embedding", "passages/set_embeddings",
                         lambda r: (r["passage_id"], embedding_text(r["title"], r["text"] or "")),
                         batch_size=batch_size, progress=progress)


# ------------------------------------------------------------------------------ scorers


class DenseScorer:
    """Cosine between the query's embedding and each passage's (stored, else computed now).

    `vectors` (passage id -> stored embedding) is what the retriever read from
    the graph for the pool; a candidate without one is embedded from its text.
    """

    uses_vectors = True

    def __init__(self, embedder: Embedder):
        self.embedder = embedder

    def score(self, query: str, candidates: Sequence[Any], *, vectors: dict[str, np.ndarray] | None = None
              ) -> np.ndarray:
        if not candidates:
            return np.zeros(0, dtype=float)
        vectors = vectors or {}
        ids = [str(field_of(c, "passage_id", field_of(c, "id", ""))) for c in candidates]
        missing = [i for i, pid in enumerate(ids) if pid not in vectors]
        rows = np.zeros((len(candidates), 0), dtype=np.float32)
        if missing:
            encoded = _unit(self.embedder.encode([embedding_text(field_of(candidates[i], "title"),
                                                                 str(field_of(candidates[i], "text",
                                                                              field_of(candidates[i], "evidence"))))
                                                  for i in missing]))
            rows = np.zeros((len(candidates), encoded.shape[1]), dtype=np.float32)
            rows[missing] = encoded
        for i, pid in enumerate(ids):
            if pid in vectors:
                vec = _unit(vectors[pid])[0]
                if rows.shape[1] == 0:
                    rows = np.zeros((len(candidates), vec.shape[0]), dtype=np.float32)
                rows[i] = vec
        probe = _unit(self.embedder.encode([query]))[0]
        if probe.shape[0] != rows.shape[1]:
            raise ConfigError(f"stored passage embeddings have {rows.shape[1]} dimensions but the embedder gives "
                              f"{probe.shape[0]}; re-embed them with the current embedder "
                              "(kgtool.retrieve.passages.embed_passages) or set the embedder they were made with")
        return (rows @ probe).astype(float)


class FulltextScorer:
    """Lucene's own score from the full-text pool (0 for passages that came from another pool)."""

    def score(self, query: str, candidates: Sequence[Any]) -> np.ndarray:
        return np.array([float((getattr(c, "scores", None) or {}).get("fulltext", 0.0)) for c in candidates])


def _unit(matrix: Any) -> np.ndarray:
    rows = np.atleast_2d(np.asarray(matrix, dtype=np.float32))
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0.0, 1.0, norms)


def passage_scorers(registry: Registry | None = None) -> Registry:
    """A copy of `registry` (default: the built-in scorers) with the passage scorers added where missing."""
    registry = (registry or default_registry()).copy()
    if "dense" not in registry:
        registry.register("dense", DenseScorer, description="cosine of query and passage embeddings (MiniLM "
                                                            "by default: the graph's embedder)")
    if "fulltext" not in registry:
        registry.register("fulltext", FulltextScorer, description="Lucene's score from the passage full-text index")
    return registry


# ------------------------------------------------------------------------------ retriever


class PassageRetriever:
    """Pools from Cypher, ranked by named scorers (by default: the full-text pool ranked by BM25).

    embedder: needed by the ``vector`` pool and the ``dense`` scorer (the
    graph's, ``kg.embedder``). seeds: how many top passages the ``linked``
    pool expands. A linked passage is scored like the pool, plus `link_weight`
    times the score of the seed that leads to it: with a weight below 1 it
    ranks below its seed, and above unlinked passages that match the query
    as well as it does. walk: options of the ``walk`` pool (kgtool.retrieve.walk:
    per_entity, max_new, damping, passage_weight; fusion: ``ppr`` ranks by the
    walk's score alone as HippoRAG 2 does, ``rrf`` adds its reciprocal rank to the
    first-stage scorers'; seeds: the entities it restarts at, ``names`` linked in the
    question, ``facts`` of the nearest facts (HippoRAG 2's query-to-triple step) or
    ``both`` (the default: the nearest facts that touch a linked name, and the names; recognition: see
    WALK_RECOGNITION);
    passage_seeds: ``pool`` scores or ``dense`` cosines of every walked passage;
    facts, entities: kgtool.retrieve.fact_seeds' FACTS and ENTITIES).
    """

    def __init__(self, db: Database, *, scorers: Sequence[str] = ("bm25",), weights: Sequence[float] | None = None,
                 registry: Registry | None = None, pool_size: int = 50, scorer_options: dict[str, dict] | None = None,
                 pools: Sequence[str] = ("fulltext",), fusion: str = "sum", embedder: Embedder | None = None,
                 seeds: int = 3, link_weight: float = 0.5, walk: dict | None = None):
        unknown = [p for p in pools if p not in POOLS]
        if unknown or not pools:
            raise ConfigError(f"unknown passage pool(s) {unknown}; use one or more of {', '.join(POOLS)}")
        if fusion not in FUSIONS:
            raise ConfigError(f"unknown fusion {fusion!r}; use one of {', '.join(FUSIONS)}")
        if weights is not None and len(weights) != len(scorers):
            raise ConfigError(f"{len(weights)} weights for {len(scorers)} scorers; give one weight per scorer")
        registry = passage_scorers(registry)
        options = dict(scorer_options or {})
        if "dense" in scorers and "embedder" not in options.get("dense", {}):
            if embedder is None:
                raise ConfigError("the dense scorer needs an embedder: PassageRetriever(..., embedder=kg.embedder)")
            options["dense"] = {**options.get("dense", {}), "embedder": embedder}
        if "vector" in pools and embedder is None:
            raise ConfigError("the vector pool needs an embedder: PassageRetriever(..., embedder=kg.embedder)")
        self.db = db
        self.pool_size = pool_size
        self.pools = tuple(pools)
        self.fusion = fusion
        self.embedder = embedder
        self.seeds = max(1, int(seeds))
        self.link_weight = float(link_weight)
        self.walk = {**WALK_DEFAULTS, **(walk or {})}
        for key, allowed in (("fusion", WALK_FUSIONS), ("seeds", WALK_SEEDS), ("recognition", WALK_RECOGNITION),
                             ("passage_seeds", WALK_PASSAGE_SEEDS)):
            if self.walk[key] not in allowed:
                raise ConfigError(f"unknown walk {key.replace('_', ' ')} {self.walk[key]!r}; use one of "
                                  f"{', '.join(allowed)}")
        if "walk" in pools and (self.walk["seeds"] != "names"
                                or self.walk["passage_seeds"] == "dense") and embedder is None:
            raise ConfigError("the walk's fact or dense seeds need an embedder: PassageRetriever(..., embedder=kg.embedder)")
        self._linker = None
        self.scorers = {name: registry.create(name, **options.get(name, {})) for name in scorers}
        self.weights = tuple(weights) if weights is not None else (1.0,) * len(self.scorers)

    # -------------------------------------------------------------- pools
    def _pool(self, session, query: str, scope: Scope) -> list[PassageHit]:
        pool: dict[str, PassageHit] = {}
        if "fulltext" in self.pools:
            for hit in search_passages(self.db, session, query, scope, self.pool_size):
                pool[hit.passage_id] = hit
        if "vector" in self.pools:
            probe = _unit(self.embedder.encode([query]))[0]
            for hit in vector_passages(self.db, session, probe, scope, self.pool_size):
                if hit.passage_id in pool:
                    pool[hit.passage_id].scores.update(hit.scores)
                else:
                    pool[hit.passage_id] = hit
        return list(pool.values())

    def _rank(self, session, query: str, pool: list[PassageHit]) -> np.ndarray:
        vectors = None
        if any(getattr(s, "uses_vectors", False) for s in self.scorers.values()):
            vectors = stored_embeddings(self.db, session, [h.passage_id for h in pool])
        total = np.zeros(len(pool))
        for (name, scorer), weight in zip(self.scorers.items(), self.weights):
            if getattr(scorer, "uses_vectors", False):
                values = np.asarray(scorer.score(query, pool, vectors=vectors), dtype=float)
            else:
                values = np.asarray(scorer.score(query, pool), dtype=float)
            for hit, value in zip(pool, values):
                hit.scores[name] = float(value)
            total += weight * (_reciprocal_ranks(values) if self.fusion == "rrf" else values)
        return total

    def retrieve(self, session, query: str, scope: Scope, k: int | None) -> list[PassageHit]:
        """The top k passages for `query` (all of the pool when k is None), with rank and scores set."""
        pool = self._pool(session, query, scope)
        if not pool:
            return []
        total = self._rank(session, query, pool)
        order = sorted(range(len(pool)), key=lambda i: (-total[i], pool[i].passage_id))
        if "linked" in self.pools:
            pool, total, order = self._expand(session, query, scope, pool, total, order)
        if "walk" in self.pools:
            pool, total, order = self._walk(session, query, scope, pool, total, order)
        ranked = []
        for rank, i in enumerate(order[:k] if k is not None else order, start=1):
            hit = pool[i]
            hit.rank, hit.score = rank, float(total[i])
            ranked.append(hit)
        return ranked

    def _expand(self, session, query, scope, pool, total, order):
        """Credit the passages linked from the top seeds (pooled already or added now) with their seed's score.

        Scores are min-max scaled to 0..1 first, so `link_weight` means the same
        whatever the scorers and fusion: a passage linked from the top passage
        gains `link_weight` of the pool's score range.
        """
        seed_ids = [pool[i].passage_id for i in order[: self.seeds]]
        linked = linked_passages(self.db, session, seed_ids, scope)
        if not linked:
            return pool, total, order
        known = {h.passage_id for h in pool}
        fresh = [h for h in linked if h.passage_id not in known]
        merged = pool + fresh
        # the scorers rank old and new passages together, so reciprocal ranks stay comparable
        own = _scaled(self._rank(session, query, merged) if fresh else total)
        seed_score = {merged[i].passage_id: float(own[i]) for i in range(len(merged)) if merged[i].passage_id in seed_ids}
        bonus = np.zeros(len(merged))
        by_id = {h.passage_id: h for h in linked}
        for i, hit in enumerate(merged):
            link = by_id.get(hit.passage_id)
            if link is not None:
                seed = seed_ids[int(link.scores["seed_rank"])]
                hit.scores["linked_from"] = float(link.scores["seed_rank"])
                bonus[i] = self.link_weight * seed_score.get(seed, 0.0)
        new_total = own + bonus
        new_order = sorted(range(len(merged)), key=lambda i: (-new_total[i], merged[i].passage_id))
        return merged, new_total, new_order

    def _walk(self, session, query, scope, pool, total, order):
        """Rank by (or fuse in) personalised PageRank over the subgraph around the pool and the question's entities."""
        from kgtool.retrieve.walk import read_subgraph, walk_scores

        options = {k: v for k, v in self.walk.items() if k not in ("fusion", "seeds", "passage_seeds", "facts",
                                                                   "entities", "recognition")}
        graph_options = {k: options.pop(k) for k in ("per_entity", "max_new") if k in options}
        entities = self._walk_entities(session, query, scope)
        if not entities and self.walk["recognition"] == "strict":
            # nothing named or recognised: a walk would only smooth the pool's ranking through the entities its
            # passages share (and a hub of them), so the ranking stays as HippoRAG 2 keeps its dense one
            self.last_walk = {"passages": 0, "entities": 0, "edges": 0}
            return pool, total, order
        seeds = [pool[i].passage_id for i in order]
        graph = read_subgraph(self.db, session, seeds, list(entities), _scope_params(scope), **graph_options)
        known = {h.passage_id for h in pool}
        fresh = [pid for pid in graph.passages if pid not in known]
        merged = pool + _passages(self.db, session, fresh)
        if self.walk["passage_seeds"] == "dense":
            # HippoRAG 2 seeds every passage by its dense score; here every passage of the subgraph
            dense = _scaled(self._dense(session, query, merged))
            passage_seeds = {h.passage_id: float(v) for h, v in zip(merged, dense)}
        else:
            scaled = _scaled(total)
            passage_seeds = {pool[i].passage_id: float(scaled[i]) for i in order}
        scores = walk_scores(graph, passage_seeds, entities, **options)
        if self.walk["fusion"] == "rrf":
            # the first-stage scorers rank old and new passages together, then the walk's rank is added
            base = self._rank(session, query, merged) if len(merged) > len(pool) else total
        else:
            base = np.zeros(len(merged))
        values = np.array([scores.get(h.passage_id, 0.0) for h in merged])
        for hit, value in zip(merged, values):
            hit.scores["walk"] = float(value)
        new_total = base + (_reciprocal_ranks(values) if self.walk["fusion"] == "rrf" else values)
        new_order = sorted(range(len(merged)), key=lambda i: (-new_total[i], merged[i].passage_id))
        self.last_walk = graph.size()
        return merged, new_total, new_order

    def _walk_entities(self, session, query: str, scope: Scope) -> list[str] | dict[str, float]:
        """The walk's entity seeds: names linked in the query, the entities of the facts nearest to it, or both.

        With no embedded fact in the graph the fact seeds fall back to the names.
        """
        kind = self.walk["seeds"]
        names = self._question_entities(session, query) if kind in ("names", "both") else []
        if kind == "names":
            return names
        from kgtool.retrieve.fact_seeds import fact_entity_seeds

        limits = {k: int(self.walk[k]) for k in ("facts", "entities") if k in self.walk}
        probe = _unit(self.embedder.encode([query]))[0]
        anchors = names if kind == "both" else ()
        strict = kind == "both" and self.walk["recognition"] == "strict"
        weights = fact_entity_seeds(self.db, session, probe, _scope_params(scope), anchors=anchors, strict=strict,
                                    **limits)
        if not weights:
            return names if strict else (names or self._question_entities(session, query))
        if kind == "both":
            # a linked name weighs as much as an entity of the best fact: 1 / its passage degree
            for row in _read(self.db, session, "walk/entity_info", ids=names):
                weights[row["entity_id"]] = max(weights.get(row["entity_id"], 0.0), 1.0 / max(1, int(row["degree"])))
        return weights

    def _dense(self, session, query: str, hits: list[PassageHit]) -> np.ndarray:
        """Cosine of the query and each passage (stored embeddings, else embedded now)."""
        vectors = stored_embeddings(self.db, session, [h.passage_id for h in hits])
        return np.asarray(DenseScorer(self.embedder).score(query, hits, vectors=vectors), dtype=float)

    def _question_entities(self, session, query: str) -> list[str]:
        """The entities the query names, as kgtool.retrieve.walk.question_entities keeps them."""
        if self._linker is None:
            from kgtool.ingest.graph_linker import GraphLinker

            self._linker = GraphLinker(self.db)
        from kgtool.retrieve.walk import question_entities

        return question_entities(self.db, session, query, self._linker.find_mentions(query))


def _passages(db: Database, session, ids: Sequence[str]) -> list[PassageHit]:
    """PassageHits (no scores yet) for passage ids, in the given order."""
    if not ids:
        return []
    rows = {r["passage_id"]: r for r in _read(db, session, "passages/by_ids", ids=list(ids))}
    return [PassageHit(pid, rows[pid]["title"] or "", rows[pid]["text"] or "", scores={})
            for pid in ids if pid in rows]


def _scaled(values: np.ndarray) -> np.ndarray:
    """Min-max scaled to 0..1 (all ones when every value is equal)."""
    values = np.asarray(values, dtype=float)
    low, high = float(values.min()), float(values.max())
    return np.ones_like(values) if high == low else (values - low) / (high - low)


def _reciprocal_ranks(values: np.ndarray) -> np.ndarray:
    """1 / (RRF_K + rank) per value, rank 1 for the highest; ties share the better rank."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(-values, kind="stable")
    ranks = np.empty(len(values))
    rank = 0
    previous = None
    for position, i in enumerate(order, start=1):
        if previous is None or values[i] != previous:
            rank = position
            previous = values[i]
        ranks[i] = rank
    return 1.0 / (RRF_K + ranks)


__all__ = ["POOLS", "FUSIONS", "PRESETS", "make_retriever", "DenseScorer", "FulltextScorer", "PassageRetriever",
           "embed_missing", "embed_passages", "model_name", "embedding_text", "linked_passages", "lucene_query",
           "passage_scorers", "search_passages", "stored_embeddings", "vector_passages"]


# ------------------------------------------------------------------------------ presets

# Named retriever configurations (PassageRetriever keyword arguments), compared by
# `kgtool eval retrieval`. Each needs what its pools and scorers need: an embedder for
# vector/dense, the bge extra and a local reranker model for cross_encoder.
PRESETS: dict[str, dict] = {
    "fulltext": {"pools": ("fulltext",), "scorers": ("fulltext",)},
    "fulltext+bm25": {"pools": ("fulltext",), "scorers": ("bm25",)},
    "dense": {"pools": ("vector",), "scorers": ("dense",)},
    "hybrid": {"pools": ("fulltext", "vector"), "scorers": ("fulltext", "dense"), "fusion": "rrf"},
    "dense+linked": {"pools": ("vector", "linked"), "scorers": ("dense",), "seeds": 3, "link_weight": 0.5},
    # equal weights and the default link weight: not fitted to any benchmark sample
    "hybrid+linked": {"pools": ("fulltext", "vector", "linked"), "scorers": ("fulltext", "dense"), "fusion": "rrf",
                      "seeds": 3, "link_weight": 0.5},
    "hybrid+cross_encoder": {"pools": ("fulltext", "vector"), "scorers": ("cross_encoder",)},
    # graph walk (kgtool.retrieve.walk) with HippoRAG 2's settings (damping 0.5, passage seed weight 0.05, the
    # 5 nearest facts' 5 best entities, WALK_DEFAULTS), seeded by the dense or hybrid pool: ranked by the walk
    # alone, or its rank fused with full-text and dense; dense+linked+walk seeds it with the linked expansion
    "dense+walk": {"pools": ("vector", "walk"), "scorers": ("dense",), "walk": {"fusion": "ppr"}},
    "dense+linked+walk": {"pools": ("vector", "linked", "walk"), "scorers": ("dense",), "seeds": 3,
                          "link_weight": 0.5, "walk": {"fusion": "ppr"}},
    "hybrid+walk": {"pools": ("fulltext", "vector", "walk"), "scorers": ("fulltext", "dense"), "fusion": "rrf",
                    "walk": {"fusion": "ppr"}},
    "hybrid+walk+rrf": {"pools": ("fulltext", "vector", "walk"), "scorers": ("fulltext", "dense"), "fusion": "rrf",
                        "walk": {"fusion": "rrf"}},
}


def make_retriever(db: Database, preset: str, *, embedder: Embedder | None = None, registry: Registry | None = None,
                   **overrides) -> PassageRetriever:
    """A PassageRetriever from a named preset (see PRESETS); keyword arguments override the preset's."""
    if preset not in PRESETS:
        raise ConfigError(f"unknown passage retriever {preset!r}; use one of {', '.join(PRESETS)}")
    return PassageRetriever(db, embedder=embedder, registry=registry, **{**PRESETS[preset], **overrides})
