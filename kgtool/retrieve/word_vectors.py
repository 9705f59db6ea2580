"""The words of the stored passages embedded ahead of the answers that read them.

The offline readers weigh a passage's sentences word by word (kgtool.reason.relmatch's analyses:
every content word, lower-cased, is one string for the embedder): most of the strings a C2RAG
answer embeds, ~90 an answer that its process has not met. They are the same strings whichever
question reads the passage, so `kgtool db warm-vectors` embeds them once into the embedder's disk
cache (kgtool.models.vector_cache) and answers read them from there: the same vectors, by the same
model. Not part of `kgtool ingest docs`: a word costs ~2 ms of CPU (MiniLM's cost for any short
string), 45 s for the 23k words of the two dev corpora, which would halve ingestion's throughput;
without it the disk cache fills as answers meet the words.
"""
from __future__ import annotations

from typing import Iterable

from kgtool.core.text import tokenize

PAGE = 500  # passages read per statement


def passage_words(texts: Iterable[str]) -> list[str]:
    """The strings an analysis of these texts embeds for their words (RelationMatcher._split: each
    content token lower-cased), each once, in order of first use."""
    out: dict[str, None] = {}
    for text in texts:
        for token in tokenize(text or ""):
            if token.content:
                out.setdefault(token.text.lower())
    return list(out)


def store_passage_words(db, embedder, *, progress=None) -> int:
    """Embed the words of every stored passage that the embedder's disk cache lacks; how many were
    embedded (0 when the embedder has no disk cache). progress(passages read, words embedded) per page."""
    if getattr(embedder, "disk", None) is None:
        return 0
    done, read, after = 0, 0, ""
    while True:
        rows = db.read("passages/text_page", after=after, limit=PAGE)
        if not rows:
            return done
        done += embedder.store(passage_words(t for r in rows for t in (r["title"], r["text"])))
        read += len(rows)
        after = rows[-1]["passage_id"]
        if progress:
            progress(read, done)


__all__ = ["passage_words", "store_passage_words"]
