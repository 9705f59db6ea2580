"""Passage embeddings filled batch by batch while the ingest goes on (kgtool.ingest.docs).

Each batch of passages is embedded on a thread of its own as soon as it is
written, while the main thread extracts the next batch: the embedder
(onnxruntime or numpy's BLAS) releases the GIL, so extraction and embedding
run on different cores. The vectors are written in the batch's own
transaction-sized pages (the passage_embedding vector index fills in batches,
not in one pass at the end). Passages already embedded by this model are left
alone, so a re-ingest embeds nothing again.
"""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Sequence

from kgtool.graph.db import Database
from kgtool.retrieve.passages import embedding_text


class BatchEmbedder:
    """embed(passage ids) queues a batch; finish() waits for all of them (raising the first error)."""

    def __init__(self, db: Database, embedder, *, progress: Callable[[int, int], None] | None = None,
                 total: int = 0):
        self.db = db
        # a passage is embedded once: the per-string cache of CachedEmbedder would only hold memory
        self.embedder = getattr(embedder, "inner", embedder)
        self.model = str(getattr(embedder, "name", "") or type(embedder).__name__)
        self.progress = progress
        self.total = total
        self.done = 0
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgtool-embed")
        self._pending: list[Future] = []

    def embed(self, passage_ids: Sequence[str]) -> None:
        self._pending.append(self._pool.submit(self._embed, list(passage_ids)))

    def _embed(self, ids: list[str]) -> int:
        rows = self.db.read("passages/missing_embeddings", ids=ids, model=self.model)
        if not rows:
            return 0
        vectors = self.embedder.encode([embedding_text(r["title"], r["text"] or "") for r in rows])
        self.db.write("passages/set_embeddings", rows=[
            {"id": r["passage_id"], "embedding": [float(x) for x in vec], "model": self.model}
            for r, vec in zip(rows, vectors)])
        return len(rows)

    def abandon(self) -> None:
        """Stop after the batch being embedded (the ingest failed; its rerun embeds the rest)."""
        self._pool.shutdown(wait=True, cancel_futures=True)

    def finish(self) -> int:
        """Wait for every queued batch; returns how many passages were embedded."""
        try:
            for future in self._pending:
                self.done += future.result()
                if self.progress:
                    self.progress(self.done, max(self.total, self.done))
        finally:
            self._pool.shutdown(wait=True, cancel_futures=True)
        return self.done
