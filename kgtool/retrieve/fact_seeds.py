"""Query-to-triple seeds of the graph walk (HippoRAG 2's step before the walk).

A question names few of the entities its answer runs through, and a linker
matching names finds fewer still ("the performer of Hello Love" names the song,
not the singer). HippoRAG 2 embeds the question and matches it against the
graph's facts written as text, "head relation tail"; the entities of the best
facts restart the walk. A fact that fits the question well names both ends of
a hop, the one the question names and the one it leads to.

Facts are embedded once, at ingestion (`embed_facts`, the fact_embedding
vector index), so the match is one index read per question whatever the size
of the graph. The weights follow HippoRAG 2's code: the top `facts` facts
(5); each fact's score shared by its entity through the entity's passage
degree (a name in a thousand passages says little about which of them
matters); an entity's weight is the mean over the top facts it is in; the
best `entities` (5) entities are kept.

Not done offline: HippoRAG 2 has an LLM drop top facts that do not fit the
question ("recognition memory"). Here every top fact counts. Scores are cosines
divided by the best one, where HippoRAG 2 min-max scales over every fact of the
graph: the index returns only the top of that list, and both keep the best
fact at 1 and the order of the rest.
"""
from __future__ import annotations

from typing import Callable, Sequence

from kgtool.graph.db import Database
from kgtool.retrieve.stored_vectors import embed_missing, model_name

FACTS = 5  # HippoRAG 2's linking_top_k: the facts whose entities seed the walk
ENTITIES = 5  # and the entities kept (HippoRAG 2 keeps linking_top_k of them too)
CANDIDATES = 20  # facts read when only those touching a named entity count (see fact_entity_seeds)


def fact_text(head: str | None, relation: str | None, tail: str | None) -> str:
    """What a fact's embedding is computed from: the triple as a phrase."""
    return " ".join(part.strip() for part in (head or "", (relation or "").replace("_", " "), tail or "")
                    if part and part.strip())


def facts_without_embedding(db: Database, embedder) -> int:
    """How many facts (not retracted) lack an embedding from this embedder."""
    return int(db.read("walk/count_facts_without_embedding", model=model_name(embedder))[0]["n"])


def embed_facts(db: Database, embedder, *, batch_size: int = 512,
                progress: Callable[[int, int], None] | None = None) -> int:
    """Embed every fact without an embedding from this model (idempotent); returns how many were embedded.

    progress(done, total) after each page.
    """
    inner = getattr(embedder, "inner", embedder)  # each text is embedded once: a per-string cache would only hold memory
    return embed_missing(db, inner.encode, model_name(embedder), "walk/count_facts_without_embedding",
                         "walk/facts_without_embedding", "walk/set_fact_embeddings",
                         lambda r: (r["fact_id"], fact_text(r["head"], r["relation"], r["tail"])),
                         batch_size=batch_size, progress=progress)


def store_walks_facts(db: Database) -> bool:
    """Are this store's facts embedded for the walk (a document ingest embeds them)? Facts loaded
    afterwards (edits, a fact file) are then embedded at their own ingest, so the seeds see them."""
    return bool(db.read("walk/any_fact_embedded"))


def fact_index_ready(db: Database) -> bool:
    """Is the fact_embedding vector index online? A store made before it existed has none until its
    schema is applied again (`kgtool db init`, or any `kgtool ingest`); the walk then seeds from names.
    Asked at every question (a few ms beside the walk's hundreds) so a dropped index is seen too."""
    return any(r["name"] == "fact_embedding" and r["state"] == "ONLINE" for r in db.read("admin/indexes"))


def _read(db, session, name: str, **params) -> list[dict]:
    return db.run_in(session, name, **params) if session is not None else db.read(name, **params)


def fact_entity_seeds(db, session, probe: Sequence[float], scope_params: dict, *, facts: int = FACTS,
                      entities: int = ENTITIES, anchors: Sequence[str] = (), candidates: int = CANDIDATES,
                      strict: bool = False) -> dict[str, float]:
    """Entity id -> restart weight from the facts nearest to the question's embedding `probe` (unit length).

    anchors: entities the question names (linked by name). When given, only facts
    touching one of them count, out of the `candidates` nearest: the offline
    stand-in for HippoRAG 2's LLM filter, which keeps the facts that fit the
    question. When none of the candidates touches an anchor, the plain top facts count, unless
    `strict`: then no fact counts (empty), as when HippoRAG 2's filter keeps no fact and it falls
    back to dense passage retrieval; with `strict` and no anchors at all, too, nothing counts.
    Empty when the graph holds no embedded fact (a store ingested before facts
    were embedded: ingesting its corpus again embeds them, `embed_facts`).
    """
    if not fact_index_ready(db):
        return {}
    wanted = set(anchors)
    if strict and not wanted:
        return {}
    rows = _read(db, session, "walk/fact_seeds", embedding=[float(x) for x in probe],
                 limit=int(max(candidates, facts) if wanted else facts), **scope_params)
    if wanted:
        touching = [r for r in rows if r["head_id"] in wanted or r["tail_id"] in wanted]
        rows = touching if strict else (touching or rows)
    return entity_weights(rows[: int(facts)], entities=entities)


def entity_weights(rows: Sequence[dict], *, entities: int = ENTITIES) -> dict[str, float]:
    """HippoRAG 2's entity weights from scored facts (rows: score, head_id/_degree, tail_id/_degree)."""
    if not rows:
        return {}
    best = max(float(r["score"]) for r in rows)
    shares: dict[str, list[float]] = {}
    for row in rows:
        score = float(row["score"]) / best if best > 0 else 0.0
        for end in ("head", "tail"):
            entity = row[f"{end}_id"]
            shares.setdefault(entity, []).append(score / max(1, int(row[f"{end}_degree"] or 0)))
    weights = {entity: sum(values) / len(values) for entity, values in shares.items()}
    kept = sorted(weights, key=lambda e: (-weights[e], e))[: max(1, int(entities))]
    return {entity: weights[entity] for entity in kept if weights[entity] > 0}
