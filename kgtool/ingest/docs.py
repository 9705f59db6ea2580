"""Document collections: read, cut into passages, extract and link triples, load in batches.

Graph written (every write a MERGE, so re-ingesting a file changes no counts):

    (:Document {id, title, source})-[:HAS_PASSAGE]->(:Passage {id, title, text, sentences, position, source})
    (:Document)-[:ABOUT]->(:Entity)         the entity the document's title names
    (:Passage)-[:MENTIONS]->(:Entity)       every entity linked in the passage
    (:Passage)-[:SUPPORTS]->(:Fact {source})  the triples extracted from it

Text is stored once, on the Passage; `sentences` holds the start offset of each
sentence in it. A fact's `source` is the document's file, so facts read from
documents are scoped like base facts, and a file can be removed with
everything it alone contributed. Entities are linked through one gazetteer of
the names edits and fact files gave the graph plus the titles of the
documents being read (never names other document files brought, so a file
links the same way whatever was ingested before it), so a document about "Tennessee" and an edit about
Tennessee share one Entity node.

Reading (formats, duplicates, passage cutting) is kgtool.ingest.doc_readers;
the passage and document records are kgtool.ingest.doc_records.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from kgtool.core.text import normalize, relation_key
from kgtool.errors import ConfigError, InputError
from kgtool.graph.db import Database
from kgtool.ingest import load
from kgtool.ingest.doc_embed import BatchEmbedder
from kgtool.ingest.doc_extract import extract_passages, strip_disambiguation
from kgtool.ingest.doc_records import (DocReadResult, DocumentRecord, PassageRecord, chunk,  # noqa: F401 (re-exported)
                                       split_text, with_sentences)
from kgtool.ingest.doc_readers import (FORMATS, MAX_PASSAGE_CHARS, ON_DUPLICATE, guess_format,  # noqa: F401
                                       read_documents)
from kgtool.ingest.extract import EXTRACTORS, get_extractor
from kgtool.ingest.linking import Gazetteer, canonical_id
from kgtool.ingest.pipeline import DRIVER_FAILURES, interrupted
from kgtool.ingest.readers import oversize
from kgtool.ingest.records import BadRecord
from kgtool.ingest.write_behind import write_behind
from kgtool.retrieve.fact_seeds import embed_facts
from kgtool.retrieve.passages import embed_passages

# ------------------------------------------------------------------------------- pipeline

FACT_TIMING = ("now", "later")  # when a document ingest embeds its facts and relation labels (ingest_docs)


def embed_pending(db: Database, embedder, fact_embedder, *, progress: Callable[[int, int], None] | None = None
                  ) -> tuple[int, int]:
    """Embed the relation labels (embedder) and facts (fact_embedder) that have no vector yet; either may
    be None. Idempotent: what a `facts="later"` ingest left. Returns (relations, facts) embedded."""
    relations = load.write_relation_embeddings(db, embedder) if embedder is not None else 0
    facts = embed_facts(db, fact_embedder, progress=progress) if fact_embedder is not None else 0
    return relations, facts


@dataclass
class DocIngestSummary:
    path: str
    format: str
    extractor: str
    documents: int = 0
    passages: int = 0
    facts: int = 0
    entities: int = 0
    relations: int = 0
    relations_embedded: int = 0
    passages_embedded: int = 0
    facts_embedded: int = 0  # facts embedded for the graph walk's query-to-triple seeds (kgtool.retrieve.fact_seeds)
    facts_pending: bool = False  # facts="later": facts and relation labels left for embed_pending
    skipped: list[BadRecord] = field(default_factory=list)
    on_duplicate: str = "merge"
    duplicates: list[str] = field(default_factory=list)  # merged or skipped records (refused ones are in skipped)
    repeats: int = 0
    oversize: list[str] = field(default_factory=list)  # names and phrases too long to store, skipped (file: record)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.skipped

    @property
    def facts_per_passage(self) -> float:
        return self.facts / self.passages if self.passages else 0.0

    def as_dict(self) -> dict:
        return {"path": self.path, "format": self.format, "extractor": self.extractor,
                "documents": self.documents, "passages": self.passages, "facts": self.facts,
                "facts_per_passage": round(self.facts_per_passage, 3), "entities": self.entities,
                "relations": self.relations, "relations_embedded": self.relations_embedded,
                "passages_embedded": self.passages_embedded, "facts_embedded": self.facts_embedded,
                "facts_pending": self.facts_pending,
                "skipped": [str(b) for b in self.skipped], "on_duplicate": self.on_duplicate,
                "duplicates": len(self.duplicates), "duplicate_records": list(self.duplicates),
                "repeats": self.repeats, "oversize": list(self.oversize), "seconds": round(self.seconds, 3)}


def build_gazetteer(db: Database, documents: list[DocumentRecord]) -> tuple[Gazetteer, dict[str, str]]:
    """Names of edit and fact-file entities plus the documents' titles; returns it with each title's entity id."""
    gazetteer = Gazetteer(use_statistical=False)  # the tokenizer is all matching needs
    for row in db.read("docs/gazetteer_names"):
        gazetteer.add(row["id"], [row["name"], *row["aliases"]])
    topics: dict[str, str] = {}
    for doc in documents:
        if not doc.title:
            continue
        entity_id = gazetteer.link(doc.title) or canonical_id(doc.title)
        gazetteer.add(entity_id, [doc.title, strip_disambiguation(doc.title)])
        topics[doc.id] = entity_id
    return gazetteer, topics


def _storable_entities(found: dict[str, str], where: str, warnings: list[str]) -> dict[str, str]:
    """The (id, name) pairs short enough to store; a warning naming `where` for each one that is not."""
    kept = {}
    for entity_id, name in found.items():
        problem = oversize("name", name) or oversize("id", entity_id)
        if problem:
            warnings.append(f"{where}: entity {problem}")
        else:
            kept[entity_id] = name
    return kept


def _storable_triple(triple, where: str, warnings: list[str]) -> bool:
    """Whether a triple's names, ids and relation phrase are short enough to store."""
    problem = (oversize("name", triple.head) or oversize("id", triple.head_id) or oversize("name", triple.tail)
               or oversize("id", triple.tail_id) or oversize("relation", triple.relation))
    if problem:
        warnings.append(f"{where}: triple {problem}")
    return problem is None


def make_extractor(spec: Any, settings=None):
    """A document extractor: a registered name (mentions, rebel, llm), '+'-joined names, or an object."""
    if not isinstance(spec, str):
        return spec
    if spec in EXTRACTORS and "+" not in spec and spec not in ("anchor", "auto"):
        if spec == "llm":
            return EXTRACTORS.create("llm", settings=settings)
        return EXTRACTORS.create(spec)
    if spec == "anchor":
        raise ConfigError("the anchor extractor reads edits (subject, relation, object); documents have none. "
                          "Use mentions (no model), rebel or llm")
    return get_extractor(spec, settings=settings)


class _Rows:
    """Rows of one transaction."""

    def __init__(self):
        self.entities: dict[str, dict] = {}
        self.relations: dict[str, dict] = {}
        self.facts: dict[str, dict] = {}
        self.documents: dict[str, dict] = {}
        self.passages: list[dict] = []

    def entity(self, entity_id: str, name: str, aliases=()) -> None:
        row = self.entities.get(entity_id)
        if row is None:
            row = self.entities[entity_id] = {"id": entity_id, "name": name, "norm": normalize(name),
                                              "qid": None, "aliases": []}
        for alias in aliases:
            if alias and alias != row["name"] and alias not in row["aliases"]:
                row["aliases"].append(alias)

    def write(self, db: Database) -> None:
        entities = [{**row, "alias_text": " | ".join(row["aliases"])} for row in self.entities.values()]
        db.write_many([
            ("ingest/merge_entities", {"rows": entities}),
            ("ingest/merge_relations", {"rows": list(self.relations.values())}),
            ("ingest/merge_facts", {"rows": list(self.facts.values())}),
            ("docs/merge_documents", {"rows": list(self.documents.values())}),
            ("docs/merge_passages", {"rows": self.passages}),
        ])


def ingest_docs(
    db: Database,
    path: str | Path,
    *,
    format: str | None = None,
    extractor: Any = "mentions",
    strict: bool = False,
    batch_size: int = 500,
    max_passage_chars: int = MAX_PASSAGE_CHARS,
    embedder=None,
    passage_embedder=None,
    settings=None,
    progress: Callable[[int, int], None] | None = None,
    embed_progress: Callable[[int, int], None] | None = None,
    fact_progress: Callable[[int, int], None] | None = None,
    on_duplicate: str | None = None,
    facts: str = "now",
    marker=None,
) -> DocIngestSummary:
    """Load a document collection; see the module docstring. One transaction per `batch_size` passages.

    embedder embeds new relation labels (relation matching), passage_embedder the
    passages not yet embedded by it (the passage_embedding vector index, dense retrieval).
    facts: ``now`` embeds the facts (the walk's fact seeds) and relation labels before returning;
    ``later`` returns once the passages are written, embedded and searchable and leaves both to
    `embed_pending` (`kgtool db doctor --fix`): fact and label embedding were over half of a cold
    ingest's CPU (bench/README.md, session 41). Until then the walk seeds from the names it links
    (kgtool.retrieve.fact_seeds) and `kgtool db doctor` counts the facts still waiting.
    marker: the run's IngestMarker (kgtool.ingest.marker), when the caller finishes it; else its own.
    """
    from kgtool.ingest.marker import IngestMarker

    if facts not in FACT_TIMING:
        raise ConfigError(f"unknown facts timing {facts!r}; use one of {', '.join(FACT_TIMING)}")
    t0 = time.perf_counter()
    result = read_documents(path, format, max_passage_chars=max_passage_chars, on_duplicate=on_duplicate)
    ext = make_extractor(extractor, settings)
    summary = DocIngestSummary(str(path), result.format, getattr(ext, "name", type(ext).__name__))
    summary.skipped = list(result.bad)
    summary.on_duplicate, summary.duplicates, summary.repeats = result.on_duplicate, result.duplicates, result.repeats
    if strict and result.bad:
        shown = "\n".join(f"  {b}" for b in result.bad[:50])
        more = f"\n  ... and {len(result.bad) - 50} more" if len(result.bad) > 50 else ""
        raise InputError(f"{len(result.bad)} bad record(s); nothing was written (--strict):\n{shown}{more}")

    own_marker = marker is None
    marker = IngestMarker(db, "docs", path) if own_marker else marker
    gazetteer, topics = build_gazetteer(db, result.documents)
    passages = [(doc, p) for doc in result.documents for p in doc.passages]
    total = len(passages)
    entity_ids: set[str] = set()
    relation_keys: set[str] = set()
    fact_ids: set[str] = set()
    written_docs: set[str] = set()

    def prepare(start: int) -> _Rows:
        part = passages[start:start + max(1, batch_size)]
        found = extract_passages(ext, [p for _, p in part], gazetteer)
        rows = _Rows()
        for (doc, passage), extraction in zip(part, found):
            if doc.id not in rows.documents and doc.id not in written_docs:
                topic = topics.get(doc.id)
                if topic:
                    rows.entity(topic, doc.title, [strip_disambiguation(doc.title)])
                rows.documents[doc.id] = {"id": doc.id, "title": doc.title, "source": doc.source,
                                          "entity_id": topic}
            entities = _storable_entities(extraction.entities, f"{doc.where} passage {passage.id}"[:300],
                                          summary.oversize)
            for entity_id, name in entities.items():
                rows.entity(entity_id, name)
            for entity_id, kind in extraction.kinds.items():  # how the parser read a new name (kgtool.resolve)
                if entity_id in rows.entities:  # an oversized name was skipped above
                    rows.entities[entity_id].setdefault("kind", kind)
            supported = []
            for t in extraction.triples:
                if not _storable_triple(t, f"{doc.where} passage {passage.id}"[:300], summary.oversize):
                    continue
                rows.entity(t.head_id, t.head)
                rows.entity(t.tail_id, t.tail)
                key = relation_key(t.relation)
                rows.relations.setdefault(key, {"key": key, "label": t.relation, "relation_id": None, "phrases": []})
                fid = load.fact_id(t.head_id, key, t.tail_id)
                rows.facts.setdefault(fid, {
                    "id": fid, "head_id": t.head_id, "tail_id": t.tail_id, "relation": t.relation,
                    "relation_key": key, "relation_id": None, "evidence": t.evidence, "source": doc.source,
                    "case_id": None})
                if fid not in supported:
                    supported.append(fid)
            rows.passages.append({
                "id": passage.id, "document_id": doc.id, "title": passage.title, "text": passage.text,
                "sentences": list(passage.sentences), "position": passage.position, "source": doc.source,
                "fact_ids": supported, "entity_ids": sorted(entities)})
        return rows

    # passages are embedded batch by batch on their own thread while the next batch is extracted
    batches = BatchEmbedder(db, passage_embedder, progress=embed_progress, total=total) \
        if passage_embedder is not None else None

    def account(rows: _Rows, _written=None) -> None:
        if batches is not None:
            batches.embed([row["id"] for row in rows.passages])
        entity_ids.update(rows.entities)
        relation_keys.update(rows.relations)
        fact_ids.update(rows.facts)
        summary.passages += len(rows.passages)
        if progress:
            progress(summary.passages, total)

    def prepared_batches():
        for start in range(0, total, max(1, batch_size)):
            rows = prepare(start)
            written_docs.update(rows.documents)  # the next batch's prepare() must not repeat them
            yield rows

    try:
        marker.start()
        write_behind(prepared_batches(), lambda rows: rows.write(db), account,
                     thread_name="kgtool-docs-write")
    except DRIVER_FAILURES as exc:
        if batches is not None:
            batches.abandon()
        raise interrupted(exc, path, committed=summary.passages, total=total, batch_size=max(1, batch_size),
                          unit="passages") from exc
    summary.documents = len(written_docs)
    summary.entities, summary.relations, summary.facts = len(entity_ids), len(relation_keys), len(fact_ids)
    if batches is not None:
        summary.passages_embedded = batches.finish()
        # passages of earlier ingests still without an embedding from this model
        summary.passages_embedded += embed_passages(db, passage_embedder)
    db.run_autocommit("admin/await_fulltext")  # passage retrieval sees what was just written
    if facts == "now":
        summary.relations_embedded, summary.facts_embedded = embed_pending(
            db, embedder, passage_embedder, progress=fact_progress)
    else:
        summary.facts_pending = passage_embedder is not None or embedder is not None
    if own_marker:
        marker.finish()
    summary.seconds = time.perf_counter() - t0
    return summary
