"""The graph as the offline agents see it: one edit scope, read through Cypher.

Relation phrasings are read once per KnowledgeGraph (they change only on
ingestion); entity names are looked up in the graph as needed (GraphCatalog);
neighbourhoods are read with the hop retrieval query, a beam
depth per read, so the agents see exactly the pool the loop will score.
"""
from __future__ import annotations

import threading
from typing import Sequence

from kgtool.core.scope import Scope
from kgtool.core.types import CandidateFact, PassageHit
from kgtool.errors import ConfigError
from kgtool.graph.db import Database
from kgtool.ingest.graph_linker import GraphLinker
from kgtool.ingest.linking import Gazetteer
from kgtool.ingest.near_names import NearNames, asks_question
from kgtool.retrieve.hop import read_pools

LINKERS = ("graph", "gazetteer")
# other entities of the same name offered beside the linker's choice (a name a handful of sources share;
# the planner tries at most max_topics mentions in all, so more would never be looked at)
NAMESAKES = 3


class GraphCatalog:
    """Entity linking and relation phrasings of the whole graph.

    `linker` (the `linker` setting): "graph" looks names up in the name keys
    stored in the graph (kgtool.ingest.graph_linker.GraphLinker), so a new process
    is ready after one read; "gazetteer" reads every name into an in-memory
    spaCy gazetteer first (the former way, kept to compare against). Both
    link the same mentions (tests/test_linking.py).
    """

    def __init__(self, db: Database, linker: str | None = None):
        self.db = db
        kind = (linker or getattr(db.settings, "linker", None) or "graph").strip().lower()
        if kind not in LINKERS:
            raise ConfigError(f"unknown linker {kind!r}; use one of: {', '.join(LINKERS)}")
        self.kind = kind
        self._lock = threading.Lock()
        self._linker: GraphLinker | Gazetteer | None = None
        self._names: dict[str, str] = {}
        self._phrases: dict[str, list[str]] = {}
        self._stated: dict[str, list[str]] | None = None
        # relation keys whose stored label vector was read already (or found missing): see GraphView.relation_vectors
        self.vectors_read: set[tuple[str, str]] = set()
        # a question that links no name is read for misspelt ones (the `near_names` setting)
        self.near_names = bool(getattr(db.settings, "near_names", True))
        self._near_memo: dict[str, list] = {}

    def _load(self) -> None:
        if self._linker is not None:
            return
        phrases = {}
        for row in self.db.read("graph/relations"):
            phrases[row["key"]] = [row["label"], *[p for p in row["phrases"] if p != row["label"]]]
        if self.kind == "graph":
            linker: GraphLinker | Gazetteer = GraphLinker(self.db)
            linker.ensure()
        else:
            linker = Gazetteer()
            for row in self.db.read("graph/entity_names"):
                self._names[row["id"]] = row["name"]
                linker.add(row["id"], [row["name"], *row["aliases"]])
            linker.find_mentions("warm up")  # build the matcher now, not inside the first answer
        self._phrases, self._linker = phrases, linker

    @property
    def gazetteer(self) -> GraphLinker | Gazetteer:
        """The linker, ready (callers read this to load it before answering)."""
        with self._lock:
            self._load()
        return self._linker

    def entity_name(self, entity_id: str) -> str:
        linker = self.gazetteer
        if isinstance(linker, GraphLinker):
            return linker.entity_names([entity_id]).get(entity_id, entity_id)
        return self._names.get(entity_id, entity_id)

    def relation_phrases(self, relation_key: str) -> list[str]:
        self.gazetteer
        return list(self._phrases.get(relation_key, []))

    def relation_vocabulary(self) -> dict[str, list[str]]:
        """Every relation key with its label and phrasings (the same dict until the catalog reloads:
        callers may cache what they derive from it by its identity)."""
        self.gazetteer
        return self._phrases

    def stated_vocabulary(self) -> dict[str, list[str]]:
        """`relation_vocabulary` without the relations only read from passages (read once; the same
        dict until the catalog reloads). Empty when nothing is stated (a store of documents alone)."""
        if self._stated is None:
            keys = {row["key"] for row in self.db.read("graph/stated_relations")}
            self._stated = {k: v for k, v in self.relation_vocabulary().items() if k in keys}
        return self._stated

    def link_mentions(self, text: str) -> list[tuple[int, int, str, str]]:
        """The entity names in `text`; in a question where none is found, its misspelt names
        (kgtool.ingest.near_names: "Crnolix" for "Crenolix"), so the question is not lost to a slip."""
        linker = self.gazetteer
        if isinstance(linker, GraphLinker):
            mentions = linker.find_mentions(text)
            if not any(m.entity_id for m in mentions) and self.near_names and asks_question(text):
                mentions = self._near(text)
        else:
            with self._lock:  # spaCy's matcher is not documented as thread-safe
                mentions = linker.find_mentions(text)
        return [(m.start_char, m.end_char, m.entity_id, m.surface) for m in mentions if m.entity_id]

    def _near(self, text: str):
        found = self._near_memo.get(text)
        if found is None:
            found = NearNames(self.db).mentions(text)
            with self._lock:
                if len(self._near_memo) > 4096:
                    self._near_memo.clear()
                self._near_memo[text] = found
        return found

    def link(self, name: str) -> str | None:
        return self.gazetteer.link(name)

    def as_written(self, text: str, mentions) -> list[tuple[int, int, str, str]]:
        """The mentions, without a word the text writes in lower case where the entity's name is capitalised.

        In a text that capitalises its names, "citizenship" is the ordinary word, not the entity
        "Citizenship" a document corpus made of a heading (what document ingestion already assumes
        for one-word names). A lower-case text is taken as it is: it says nothing about names.
        """
        first_space = text.find(" ")
        if first_space < 0 or not any(ch.isupper() for ch in text[first_space:]):
            return list(mentions)
        kept = []
        for mention in mentions:
            surface = mention[3]
            if surface == surface.lower() and not any(ch.isdigit() for ch in surface):
                name = self.entity_name(mention[2]) or ""
                if name != name.lower():
                    continue
            kept.append(mention)
        return kept

    def with_namesakes(self, mentions, limit: int = NAMESAKES) -> list[tuple[int, int, str, str]]:
        """The mentions, each followed by up to `limit` other entities that bear the same name.

        The linker settles a shared name on one entity (its primary name, then id
        order), which is a guess: two sources may each bring their own "X" (an
        edit corpus with Wikidata ids beside one without), and the question may
        be about either. The answering agents try every namesake as a topic and
        keep the one whose graph path explains the question.
        """
        linker = self.gazetteer
        out = []
        for start, end, entity_id, surface in mentions:
            out.append((start, end, entity_id, surface))
            others = [e for e in linker.candidates(surface) if e != entity_id]
            out.extend((start, end, other, surface) for other in others[:limit])
        return out


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
        """Linked mentions as the linker finds them, less ordinary words (GraphCatalog.as_written),
        each followed by its namesakes (other entities of the same name, GraphCatalog.with_namesakes)."""
        return self.catalog.with_namesakes(self.catalog.as_written(text, self.catalog.link_mentions(text)))

    def entity_name(self, entity_id: str) -> str:
        return self.catalog.entity_name(entity_id)

    def relation_phrases(self, relation_key: str) -> list[str]:
        return self.catalog.relation_phrases(relation_key)

    def relation_vectors(self, keys, model: str) -> dict[str, object]:
        """Label -> the label embedding ingestion stored with `model`, for these relation keys (one read).
        Relations embedded by another model, or not at all, are left out."""
        # A key read once in this process is not read again: its label vector went into the embedder's
        # cache then (or it has none). The planners ask again for every relation of every answer that
        # is new to that answer, and a document store has thousands: 3-10 reads an answer, each
        # shipping 384 floats per relation, most of them for vectors already cached. Should one be
        # evicted meanwhile, the model embeds the label again: the same vector to float32 rounding.
        read = self.catalog.vectors_read
        keys = [k for k in dict.fromkeys(k for k in keys if k) if (k, model) not in read]
        if not keys:
            return {}
        rows = self._read("graph/relation_embeddings", keys=keys)
        if len(read) > 200_000:
            read.clear()
        read.update((k, model) for k in keys)
        return {r["label"]: r["embedding"] for r in rows if r["model"] == model and r["label"] and r["embedding"]}

    # ------------------------------------------------------------------ the roles' named reads
    # A role reads the graph only through these (tests/test_layers.py): every read runs in the answer's
    # session while the loop has bound one, and in the answer's scope where the read is scoped.

    def _read(self, name: str, **params) -> list[dict]:
        return (self.db.run_in(self.session, name, **params) if self.session is not None
                else self.db.read(name, **params))

    def passage_entities(self, passage_ids: Sequence[str]) -> dict[str, list[dict]]:
        """Per passage id, the entities it mentions or its document is about ({id, name, aliases}); one read."""
        ids = list(dict.fromkeys(p for p in passage_ids if p))
        if not ids:
            return {}
        rows = self._read("passages/mentions", ids=ids)
        return {r["passage_id"]: [e for e in r["entities"] if e.get("id")] for r in rows}

    def passages_naming(self, queries: list[dict], limit: int) -> dict[str, list[PassageHit]]:
        """Entity id -> the passages of this scope its full-text query finds ({entity_id, query} each), best
        first (Lucene's order on ties); one read for all of them."""
        params = self.scope.params()
        rows = self._read("reagent/passages_naming", queries=queries, limit=int(limit), cases=params["cases"],
                          batches=params["batches"])
        out = {}
        for row in rows:
            hits = sorted(row["hits"], key=lambda h: -h["fulltext"])
            out[row["entity_id"]] = [PassageHit(h["passage_id"], h["title"] or "", h["text"] or "",
                                                scores={"fulltext": float(h["fulltext"])}) for h in hits]
        return out

    def fact_in_scope(self, fact_id: str) -> dict | None:
        """The stored fact's standing in this scope (in_force, superseded_by, replacement, ...), None when
        the graph holds no such fact (cypher/safe/check_fact)."""
        rows = self._read("safe/check_fact", fact_id=fact_id, **self.scope.params())
        return rows[0] if rows else None

    def hops_between(self, from_id: str, to_id: str) -> int | None:
        """The fewest facts in force in this scope that connect the two entities, None if none within the
        read's bound (cypher/safe/connected)."""
        rows = self._read("safe/connected", from_id=from_id, to_id=to_id, **self.scope.params())
        return rows[0]["hops"] if rows else None

    def is_object_of(self, entity_id: str, relation_keys: Sequence[str]) -> bool:
        """Does some fact of one of these relations end at the entity (cypher/graph/object_of_relations)?"""
        rows = self._read("graph/object_of_relations", entity_id=entity_id, keys=list(relation_keys))
        return bool(rows and rows[0]["found"])
