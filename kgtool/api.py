"""The public Python API.

    from kgtool import KnowledgeGraph
    kg = KnowledgeGraph.connect()
    kg.init_schema()
    kg.ingest_edits("edits.jsonl")
    result = kg.answer("Who is the spouse of the founder of X?")
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from kgtool.config import Settings
from kgtool.graph import queries
from kgtool.graph.db import Database


class KnowledgeGraph:
    """One connection to the graph, plus the models the methods need (loaded lazily)."""

    def __init__(self, db: Database, settings: Settings):
        self.db = db
        self.settings = settings
        self._embedder = None

    @classmethod
    def connect(cls, settings: Settings | None = None, **overrides) -> "KnowledgeGraph":
        settings = settings or Settings.load(**overrides)
        return cls(Database.connect(settings), settings)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "KnowledgeGraph":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- schema and inspection --------------------------------------------
    def init_schema(self) -> int:
        return self.db.apply_schema()

    def stats(self) -> dict[str, dict[str, int]]:
        labels = {r["label"]: r["count"] for r in self.db.read("stats_labels")}
        rels = {r["type"]: r["count"] for r in self.db.read("stats_relationships")}
        return {"nodes": labels, "relationships": rels}

    def query(self, cypher: str, params: dict[str, Any] | None = None) -> tuple[list[str], list[dict]]:
        """Run an analyst's read-only Cypher; writes are refused."""
        return self.db.query_read_only(cypher, params)

    def query_file(self, path: str | Path, params: dict[str, Any] | None = None):
        return self.query(queries.load_file(path).text, params)

    def clear(self) -> None:
        """Delete every node and relationship (the schema stays)."""
        self.db.run_autocommit("admin/clear_graph")
        self.reset_caches()

    def reset_caches(self) -> None:
        """Forget what was derived from the graph's contents (names, relations)."""

    @property
    def embedder(self):
        if self._embedder is None:
            from kgtool.models.embed import CachedEmbedder, get_embedder

            self._embedder = CachedEmbedder(get_embedder(self.settings.embedder))
        return self._embedder
