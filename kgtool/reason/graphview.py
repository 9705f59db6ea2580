"""The graph as the offline agents see it: one edit scope, read through Cypher.

Names and relation phrasings are read once per KnowledgeGraph (they change only
on ingestion); neighbourhoods are read with the hop retrieval query, a beam
depth per read, so the agents see exactly the pool the loop will score.
"""
from __future__ import annotations

import threading

from kgtool.core.scope import Scope
from kgtool.core.types import CandidateFact
from kgtool.graph.db import Database
from kgtool.ingest.linking import Gazetteer
from kgtool.retrieve.hop import read_pools


class GraphCatalog:
    """Entity names (a gazetteer) and relation phrasings of the whole graph."""

    def __init__(self, db: Database):
        self.db = db
        self._lock = threading.Lock()
        self._gazetteer: Gazetteer | None = None
        self._names: dict[str, str] = {}
        self._phrases: dict[str, list[str]] = {}

    def _load(self) -> None:
        if self._gazetteer is not None:
            return
        gazetteer = Gazetteer()
        names = {}
        for row in self.db.read("graph/entity_names"):
            names[row["id"]] = row["name"]
            gazetteer.add(row["id"], [row["name"], *row["aliases"]])
        phrases = {}
        for row in self.db.read("graph/relations"):
            phrases[row["key"]] = [row["label"], *[p for p in row["phrases"] if p != row["label"]]]
        gazetteer.find_mentions("warm up")  # build the matcher now, not inside the first answer
        self._names, self._phrases, self._gazetteer = names, phrases, gazetteer

    @property
    def gazetteer(self) -> Gazetteer:
        with self._lock:
            self._load()
        return self._gazetteer

    def entity_name(self, entity_id: str) -> str:
        self.gazetteer
        return self._names.get(entity_id, entity_id)

    def relation_phrases(self, relation_key: str) -> list[str]:
        self.gazetteer
        return list(self._phrases.get(relation_key, []))

    def link_mentions(self, text: str) -> list[tuple[int, int, str, str]]:
        gazetteer = self.gazetteer
        with self._lock:  # spaCy's matcher is not documented as thread-safe
            mentions = gazetteer.find_mentions(text)
        return [(m.start_char, m.end_char, m.entity_id, m.surface) for m in mentions if m.entity_id]

    def link(self, name: str) -> str | None:
        return self.gazetteer.link(name)


class GraphView:
    """The offline agents' window on one scope of the graph (implements their GraphView protocol)."""

    def __init__(self, db: Database, catalog: GraphCatalog, scope: Scope, memo: dict | None = None):
        self.db = db
        self.catalog = catalog
        self.scope = scope
        # entity id -> pool; shared with the loop's HopRetriever for one answer, so
        # the planner's look-ahead and the hop itself read each neighbourhood once
        self.memo = memo if memo is not None else {}
        self.session = None  # the answer's session, bound by the loop while it runs

    def neighborhoods(self, entity_ids, per_group: int) -> dict[str, list[CandidateFact]]:
        """Several entities' pools, at most per_group facts per (relation, direction), in one read."""
        pools, cut = read_pools(self.db, self.session, list(dict.fromkeys(entity_ids)), self.scope, per_group)
        # a pool with no group cut short is the whole pool: the hops can use it as it is
        for entity_id, pool in pools.items():
            if entity_id not in cut and entity_id not in self.memo:
                self.memo[entity_id] = [CandidateFact(**vars(c)) for c in pool]
        return pools

    def link_mentions(self, text: str):
        return self.catalog.link_mentions(text)

    def entity_name(self, entity_id: str) -> str:
        return self.catalog.entity_name(entity_id)

    def relation_phrases(self, relation_key: str) -> list[str]:
        return self.catalog.relation_phrases(relation_key)
