"""The models and registries a KnowledgeGraph shares between answers, each loaded on first use.

A run reaches them through its context as `kgtool.reason.services.Services`
(the settings, embedder, scorers, catalog, matcher, LLM client and the method
and agent registries), never through the rest of the API.
"""
from __future__ import annotations

import threading

from kgtool.config import Settings
from kgtool.graph.db import Database


class GraphServices:
    """Lazily loaded, shared parts of one graph connection (thread-safe: answer_many's workers share them)."""

    def __init__(self, db: Database, settings: Settings):
        self.db = db
        self.settings = settings
        self._embedder = None
        self._catalog = None
        self._scorers = None
        self._llm = None
        self._matcher = None
        self._methods = None
        self._agents = None
        # answer_many's workers may ask for a model first at the same moment: load it once
        self._loading = threading.RLock()

    def prepare(self, agents: str) -> None:
        """Load what answering with `agents` needs (gazetteer, embedder and its first encode), once."""
        self.catalog.gazetteer
        if agents == "offline":
            self.matcher.encoder.encode(["warm up"])

    @property
    def methods(self):
        """The registered methods (a copy of the built-ins: register your own here)."""
        from kgtool.reason.methods import METHODS

        return self._lazy("_methods", METHODS.copy)

    @property
    def agents(self):
        """The registered agent families (offline, llm)."""
        from kgtool.reason.agents.factory import AGENTS

        return self._lazy("_agents", AGENTS.copy)

    def _lazy(self, attr: str, build):
        value = getattr(self, attr)
        if value is None:
            with self._loading:
                value = getattr(self, attr)
                if value is None:
                    value = build()
                    setattr(self, attr, value)
        return value

    @property
    def catalog(self):
        from kgtool.reason.graphview import GraphCatalog

        return self._lazy("_catalog", lambda: GraphCatalog(self.db))

    @property
    def scorers(self):
        from kgtool.retrieve.scoring import default_registry

        return self._lazy("_scorers", default_registry)

    @property
    def llm_client(self):
        from kgtool.models.llm import LLMClient

        return self._lazy("_llm", lambda: LLMClient(self.settings))

    @property
    def matcher(self):
        """The offline agents' relation matcher; one per graph, so its vector caches outlive a question."""
        from kgtool.reason.relmatch import RelationMatcher

        return self._lazy("_matcher", lambda: RelationMatcher(self.embedder))

    @property
    def embedder(self):
        from kgtool.models.embed import CachedEmbedder, get_embedder
        from kgtool.models.vector_cache import for_embedder

        def build():
            inner = get_embedder(self.settings.embedder)
            return CachedEmbedder(inner, disk=for_embedder(self.settings.shared_cache, inner))

        return self._lazy("_embedder", build)

    def unfinished_ingests(self) -> list[str]:
        """How each ingest of the store that started and never finished is named to a user
        (kgtool.health); the status rule does not answer while one is listed."""
        from kgtool.health import unfinished_ingests, unfinished_message

        return [unfinished_message(i) for i in unfinished_ingests(self.db)]
