"""Graph-walk passage retrieval: personalised PageRank over a bounded Passage-Entity-Fact subgraph.

HippoRAG 2's idea, run on kgtool's graph: a question's relevant passages are
those a random walk reaches often when it restarts at what the question points
to, namely its linked entities and its best first-stage passages. The graph
is undirected and has two kinds of edges:

- passage - entity: the passage MENTIONS the entity, or its document is ABOUT it;
- entity - entity: facts join them (head SUBJECT_OF a fact whose OBJECT is the tail).

The whole graph is never read. Three Cypher reads (cypher/walk/) fetch a
bounded subgraph around the seeds, and numpy runs the walk on it:

1. the entities of the seed passages (the first-stage pool), each with its
   passage degree in the whole graph;
2. passages reached from the question's entities and then from the seed
   passages' entities (in seed order), at most `per_entity` per entity and
   `max_new` new passages in all; then the entities of those passages;
3. the facts joining any two entities of the subgraph.

So the subgraph holds at most len(pool) + max_new passages and their entities,
whatever the size of the corpus: the cost per question stays flat.

Truncation is kept honest: an entity spreads its probability over its whole
passage degree, so the share that would go to passages outside the subgraph
leaves the walk instead of inflating the few passages read (a hub named by a
thousand passages passes little to any one of them, as in the full graph).

Seeds (the restart distribution), as in HippoRAG 2: each question entity has
weight 1 / its passage degree (a rare name says more than a common one), each
first-stage passage `passage_weight` (0.05) times its first-stage score scaled
to 0..1. Damping 0.5 (the walk continues with probability 0.5 at each step).
The entity seeds may come already weighted instead: those of the facts nearest
to the question (kgtool.retrieve.fact_seeds), which are read first in step 2.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

DAMPING = 0.5  # HippoRAG 2's setting: half the mass restarts at the seeds each step
PASSAGE_WEIGHT = 0.05  # HippoRAG 2's weight of a passage seed relative to an entity seed
PER_ENTITY = 10  # passages read per entity
MAX_NEW = 200  # passages the walk may add to the first-stage pool


def personalized_pagerank(n: int, sources: np.ndarray, targets: np.ndarray, weights: np.ndarray,
                          reset: np.ndarray, *, damping: float = DAMPING, out_weight: np.ndarray | None = None,
                          tol: float = 1e-10, max_iter: int = 100) -> np.ndarray:
    """Stationary scores of a walk that follows a directed edge with probability weight / out_weight[source]
    and otherwise restarts at `reset` (normalised here).

    out_weight defaults to each node's summed outgoing edge weight; a larger value
    lets the difference leak out of the walk (edges outside the subgraph). A node
    without out edges restarts. Sparse: one bincount per iteration, no n x n matrix.
    """
    reset = np.asarray(reset, dtype=float)
    total = reset.sum()
    if n == 0 or total <= 0:
        return np.zeros(n)
    reset = reset / total
    sources = np.asarray(sources, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    weights = np.asarray(weights, dtype=float)
    own = np.bincount(sources, weights=weights, minlength=n)
    norm = own if out_weight is None else np.maximum(np.asarray(out_weight, dtype=float), own)
    share = weights / np.where(norm[sources] > 0, norm[sources], 1.0)
    dangling = norm == 0
    scores = reset.copy()
    for _ in range(max_iter):
        spread = np.bincount(targets, weights=share * scores[sources], minlength=n)
        following = damping * (spread + scores[dangling].sum() * reset)
        updated = (1.0 - damping) * reset + following
        done = np.abs(updated - scores).sum() < tol
        scores = updated
        if done:
            break
    return scores


@dataclass
class Subgraph:
    """Passages and entities around the seeds, and the undirected edges between them."""

    passages: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    degree: dict[str, int] = field(default_factory=dict)  # entity -> passage degree in the whole graph
    links: set[tuple[str, str]] = field(default_factory=set)  # (passage, entity)
    facts: dict[tuple[str, str], int] = field(default_factory=dict)  # (entity, entity) -> facts joining them

    def add_links(self, rows: Sequence[Mapping]) -> None:
        known = set(self.entities)
        for row in rows:
            entity = row["entity_id"]
            if entity not in known:
                known.add(entity)
                self.entities.append(entity)
            self.degree[entity] = max(int(row["degree"] or 0), self.degree.get(entity, 0))
            self.links.add((row["passage_id"], entity))

    def size(self) -> dict[str, int]:
        return {"passages": len(self.passages), "entities": len(self.entities),
                "edges": len(self.links) + len(self.facts)}


def _read(db, session, name: str, **params) -> list[dict]:
    return db.run_in(session, name, **params) if session is not None else db.read(name, **params)


def read_subgraph(db, session, seed_passages: Sequence[str], seed_entities: Sequence[str], scope_params: dict, *,
                  per_entity: int = PER_ENTITY, max_new: int = MAX_NEW) -> Subgraph:
    """The bounded subgraph around the seeds (see the module docstring for the reads and the bound)."""
    graph = Subgraph(passages=list(dict.fromkeys(seed_passages)))
    graph.add_links(_read(db, session, "walk/passage_entities", ids=graph.passages))
    # question entities first, then the seed passages' entities in the order of their best seed
    rank = {pid: i for i, pid in enumerate(graph.passages)}
    best: dict[str, int] = {}
    for pid, entity in graph.links:
        best[entity] = min(best.get(entity, 1 << 30), rank[pid])
    order = list(dict.fromkeys([*seed_entities, *sorted(best, key=lambda e: (best[e], e))]))
    # ask only for as many entities as could still add passages: the read stays bounded too
    wanted = order[: max(1, max_new // max(1, per_entity)) * 2]
    known = set(graph.passages)
    fresh: list[str] = []
    rows = _read(db, session, "walk/entity_passages", entity_ids=wanted, per_entity=int(per_entity), **scope_params)
    reached: dict[str, list[str]] = {}
    for row in rows:
        reached.setdefault(row["entity_id"], []).append(row["passage_id"])
    for entity in wanted:
        for pid in reached.get(entity, []):
            if len(fresh) >= max_new:
                break
            if pid not in known:
                known.add(pid)
                fresh.append(pid)
    if fresh:
        graph.passages.extend(fresh)
        graph.add_links(_read(db, session, "walk/passage_entities", ids=fresh))
    for entity in seed_entities:  # a question entity no passage of the subgraph names still seeds the walk
        if entity not in graph.degree:
            graph.entities.append(entity)
            graph.degree[entity] = 0
    if graph.entities:
        for row in _read(db, session, "walk/entity_facts", entity_ids=graph.entities):
            graph.facts[(row["head_id"], row["tail_id"])] = int(row["facts"])
    return graph


def question_entities(db, session, query: str, mentions: Sequence) -> list[str]:
    """The linked mentions of the query that seed the walk: names, not words that happen to be names.

    The linker also matches ordinary words to entities that extraction made of a
    capitalised word ("that", "magazine"), and one such seed with a single passage
    would outweigh everything else. A mention seeds the walk when it is written as a
    name in the query (a capital letter or a digit, and not only the query's first
    word) and either names the topic of a document or has more than one word.
    """
    kept = []
    for m in mentions:
        surface = (m.surface or "").strip()
        if not m.entity_id or not any(c.isupper() or c.isdigit() for c in surface):
            continue
        if m.start_char == 0 and " " not in surface:
            continue  # capitalised because it starts the sentence
        kept.append((m.entity_id, " " in surface))
    if not kept:
        return []
    info = {r["entity_id"]: r for r in _read(db, session, "walk/entity_info", ids=[e for e, _ in kept])}
    return list(dict.fromkeys(e for e, multiword in kept if e in info and (info[e]["topic"] or multiword)))


def walk_scores(graph: Subgraph, passage_seeds: Mapping[str, float], entity_seeds: Sequence[str] | Mapping[str, float],
                *, damping: float = DAMPING, passage_weight: float = PASSAGE_WEIGHT) -> dict[str, float]:
    """Personalised PageRank of every passage of the subgraph.

    passage_seeds: passage id -> first-stage score scaled to 0..1; entity_seeds: the
    question's linked entities (each weighted 1 / its passage degree), or entity id ->
    restart weight (the fact seeds of kgtool.retrieve.fact_seeds, already weighted).
    """
    index = {pid: i for i, pid in enumerate(graph.passages)}
    offset = len(index)
    for j, entity in enumerate(graph.entities):
        index.setdefault(entity, offset + j)
    n = offset + len(graph.entities)
    src, dst, weight = [], [], []
    for pid, entity in graph.links:
        if pid in index and entity in index:
            a, b = index[pid], index[entity]
            src += [a, b]
            dst += [b, a]
            weight += [1.0, 1.0]
    fact_degree: dict[str, int] = {}
    for (head, tail), facts in graph.facts.items():
        a, b = index[head], index[tail]
        src += [a, b]
        dst += [b, a]
        weight += [float(facts), float(facts)]
        fact_degree[head] = fact_degree.get(head, 0) + facts
        fact_degree[tail] = fact_degree.get(tail, 0) + facts
    # an entity's probability is spread over all its passages (its degree in the whole graph)
    out_weight = np.zeros(n)
    for entity in graph.entities:
        out_weight[index[entity]] = graph.degree.get(entity, 0) + fact_degree.get(entity, 0)
    reset = np.zeros(n)
    weighted = entity_seeds if isinstance(entity_seeds, Mapping) else {
        entity: 1.0 / max(1, graph.degree.get(entity, 0)) for entity in entity_seeds}
    for entity, value in weighted.items():
        if entity in index:
            reset[index[entity]] += float(value)
    for pid, score in passage_seeds.items():
        if pid in index:
            reset[index[pid]] += passage_weight * float(score)
    scores = personalized_pagerank(n, np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64),
                                   np.array(weight), reset, damping=damping, out_weight=out_weight)
    return {pid: float(scores[i]) for pid, i in index.items() if i < offset}
