"""What a run may use of the graph it answers on, as a typed interface.

The runner hands a method's context the graph's shared services (a
kgtool.services.GraphServices, which a KnowledgeGraph is); reason code reaches
the models and registries through this interface, never the rest of the API
(ingestion, evaluation, deletion).
"""
from __future__ import annotations

from typing import Any, Protocol

from kgtool.config import Settings


class Services(Protocol):
    """Shared, lazily loaded parts of one graph connection."""

    db: Any  # kgtool.graph.db.Database
    settings: Settings

    @property
    def embedder(self) -> Any: ...  # a CachedEmbedder (kgtool.models.embed)

    @property
    def scorers(self) -> Any: ...  # the scorer Registry (kgtool.retrieve.scoring)

    @property
    def catalog(self) -> Any: ...  # names and links of the graph's entities (kgtool.reason.graphview)

    @property
    def matcher(self) -> Any: ...  # the offline agents' relation matcher (kgtool.reason.relmatch)

    @property
    def llm_client(self) -> Any: ...  # kgtool.models.llm.LLMClient

    @property
    def methods(self) -> Any: ...  # the method Registry

    @property
    def agents(self) -> Any: ...  # the agent-family Registry

    def prepare(self, agents: str) -> None: ...
