"""Vectors stored on graph nodes: the model that made them, and embedding what a model has not embedded yet.

Passages (kgtool.retrieve.passages.embed_passages) and facts (kgtool.retrieve.fact_seeds.embed_facts)
are embedded at ingestion the same way; each keeps what its vectors are computed from and its reads.
"""
from __future__ import annotations

from kgtool.graph.db import Database


def model_name(embedder) -> str:
    """The name stored beside a vector: vectors of another model are embedded again."""
    return str(getattr(embedder, "name", "") or type(embedder).__name__)


def embed_missing(db: Database, encode, model: str, count: str, page: str, write: str, id_and_text, *,
                  batch_size: int, progress=None) -> int:
    """Page by page, embed the nodes the `page` read returns (those without a vector of `model`) and store
    the vectors with `write`; `id_and_text(row)` gives a row's id and the text to embed. Returns how many
    were embedded; progress(done, total) after each page (total from the `count` read)."""
    done = 0
    total = db.read(count, model=model)[0]["n"] if progress else 0
    while True:
        rows = db.read(page, model=model, limit=int(batch_size))
        if not rows:
            return done
        pairs = [id_and_text(r) for r in rows]
        vectors = encode([text for _id, text in pairs])
        db.write(write, rows=[{"id": node_id, "embedding": [float(x) for x in vec], "model": model}
                              for (node_id, _text), vec in zip(pairs, vectors)])
        done += len(rows)
        if progress:
            progress(done, max(total, done))


__all__ = ["embed_missing", "model_name"]
