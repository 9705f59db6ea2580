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

Formats (`read_documents(path, format)`):

- ``hotpotqa``: the HotpotQA corpus, a JSON object ``{title: [sentence, ...]}``
  (or a HotpotQA question file, whose ``context`` pairs are read);
- ``musique`` and ``2wiki``: a JSON list of ``{"title", "text"}`` paragraphs (or
  a question file: MuSiQue ``paragraphs`` / 2Wiki ``context``); paragraphs
  with the same title are passages of one document;
- ``jsonl``: one ``{"id", "title"?, "text"}`` object per line, each a document;
- ``text``: a ``.txt`` file, or a directory of them (searched recursively); each
  file is a document and its blank-line separated paragraphs are passages.

Duplicates (`on_duplicate`, `--on-duplicate`): a document is named by its title
(hotpotqa, musique, 2wiki: within the file), its id (jsonl) or its file (text).
A record naming a document already read with the same text adds nothing (it is
counted as a repeat). With other text, the policy decides, and the summary counts
and lists every such record:

- ``merge`` (default for the title formats): the texts are passages of the one
  document, in reading order (a HotpotQA corpus object with a title twice, which
  plain JSON reading would silently reduce to its last entry, included);
- ``error`` (default for jsonl): the later record is refused as a bad record
  naming the first (skipped and listed, exit 1; --strict writes nothing);
- ``skip``: the first record is kept and the later ones skipped, listed.

Corpus paragraphs stay whole (they are the unit benchmarks name as gold);
``text`` and ``jsonl`` passages longer than `max_passage_chars` are cut at
sentence boundaries. A bad record (not JSON, no text, a wrong type) is skipped
and reported as ``file:line`` or ``file:title``; with strict=True nothing is
written if any record is bad.
"""
from __future__ import annotations

import json
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from kgtool.core.formats import DOCS, detect_format
from kgtool.core.text import normalize, relation_key
from kgtool.errors import ConfigError, InputError
from kgtool.graph.db import Database
from kgtool.ingest import load
from kgtool.ingest.doc_extract import extract_passages, sentence_spans, strip_disambiguation
from kgtool.ingest.extract import EXTRACTORS, get_extractor
from kgtool.ingest.linking import Gazetteer, canonical_id
from kgtool.ingest.pipeline import DRIVER_FAILURES, interrupted
from kgtool.ingest.readers import MAX_ID_CHARS, oversize
from kgtool.ingest.records import BadRecord
from kgtool.ingest.write_behind import write_behind
from kgtool.retrieve.passages import embed_passages

FORMATS = DOCS.formats
ON_DUPLICATE = ("merge", "error", "skip")
MAX_TITLE_CHARS = 1_000
MAX_PASSAGE_CHARS = 3_000


@dataclass(frozen=True)
class PassageRecord:
    id: str
    document_id: str
    title: str
    text: str
    sentences: tuple[int, ...]  # start offset of each sentence in text
    position: int

    @property
    def description(self) -> str:
        """The text under the name edit extractors read (rebel, llm)."""
        return self.text


@dataclass
class DocumentRecord:
    id: str
    title: str
    source: str  # the file, resolved
    where: str  # file:line or file:title, for messages
    passages: list[PassageRecord] = field(default_factory=list)


@dataclass
class DocReadResult:
    path: str
    format: str
    documents: list[DocumentRecord] = field(default_factory=list)
    bad: list[BadRecord] = field(default_factory=list)
    on_duplicate: str = "merge"
    duplicates: list[str] = field(default_factory=list)  # records naming a document read before, other text
    repeats: int = 0  # records naming a document read before with the same text (nothing to add)


# ------------------------------------------------------------------------------- sentences


def with_sentences(sentences: list[str]) -> tuple[str, tuple[int, ...]]:
    """Join given sentences (HotpotQA keeps their leading spaces) into one text and their starts."""
    text, starts = "", []
    for sentence in sentences:
        lead = len(sentence) - len(sentence.lstrip())
        if sentence.strip():
            starts.append(len(text) + lead)
        text += sentence
    stripped = text.rstrip()
    return stripped, tuple(s for s in starts if s < len(stripped))


def split_text(text: str) -> tuple[str, tuple[int, ...]]:
    text = text.strip()
    return text, tuple(start for start, _ in sentence_spans(text))


def chunk(text: str, max_chars: int) -> list[tuple[str, tuple[int, ...]]]:
    """Passages of at most `max_chars` (a longer single sentence stays whole), cut at sentence ends."""
    text, starts = split_text(text)
    if len(text) <= max_chars:
        return [(text, starts)] if text else []
    bounds = list(starts) + [len(text)]
    pieces, begin = [], bounds[0] if bounds else 0
    for a, b in zip(bounds, bounds[1:]):
        if b - begin > max_chars and a > begin:
            pieces.append((begin, a))
            begin = a
    pieces.append((begin, len(text)))
    out = []
    for a, b in pieces:
        piece = text[a:b]
        stripped = piece.strip()
        lead = len(piece) - len(piece.lstrip())
        local = tuple(s - a - lead for s in starts if a <= s < b and s - a - lead >= 0)
        if stripped:
            out.append((stripped, local or (0,)))
    return out


# ------------------------------------------------------------------------------- readers


class _Bad(Exception):
    pass


def guess_format(path: Path) -> str:
    return detect_format(path, None, DOCS)


def read_documents(path: str | Path, format: str | None = None, *,
                   max_passage_chars: int = MAX_PASSAGE_CHARS, on_duplicate: str | None = None) -> DocReadResult:
    """Read a document collection; see the module docstring for the formats and for duplicates
    (on_duplicate: merge, error or skip; None for the format's default)."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    fmt = detect_format(path, format, DOCS)
    if path.is_dir() and fmt != "text":
        raise InputError(f"{path} is a directory; only --format text reads directories (of .txt files)")
    policy = on_duplicate or ("error" if fmt == "jsonl" else "merge")
    if policy not in ON_DUPLICATE:
        raise ConfigError(f"unknown duplicate policy {on_duplicate!r}; use one of {', '.join(ON_DUPLICATE)}")
    result = DocReadResult(str(path), fmt, on_duplicate=policy)
    builder = _Builder(result, max_passage_chars)
    if fmt == "text":
        _read_text(path, builder)
    elif fmt == "jsonl":
        _read_jsonl(path, builder)
    else:
        _read_corpus(path, fmt, builder)
    if not result.documents and not result.bad:
        raise InputError(f"{path}: no documents found (is --format {fmt} right?)")
    return result


class _Builder:
    """Collects passages into documents (one per title within a file) with stable ids."""

    def __init__(self, result: DocReadResult, max_chars: int):
        self.result = result
        self.max_chars = max_chars
        self._docs: dict[str, DocumentRecord] = {}
        self._texts: dict[str, set[str]] = defaultdict(set)

    def add(self, doc_id: str, title: str, source: str, where: str,
            pieces: list[tuple[str, tuple[int, ...]]]) -> None:
        doc = self._docs.get(doc_id)
        if doc is None:
            doc = self._docs[doc_id] = DocumentRecord(doc_id, title, source, where)
            self.result.documents.append(doc)
        elif not self._duplicate(doc, where, pieces):
            return
        for text, starts in pieces:
            if text in self._texts[doc_id]:
                continue  # the same paragraph twice in one document is one passage
            self._texts[doc_id].add(text)
            position = len(doc.passages)
            doc.passages.append(PassageRecord(f"{doc_id}#{position}", doc_id, title, text, starts, position))

    def _duplicate(self, doc: DocumentRecord, where: str, pieces) -> bool:
        """A record naming `doc`, read before: True when its passages are to be added (see ON_DUPLICATE)."""
        if all(text in self._texts[doc.id] for text, _ in pieces):
            self.result.repeats += 1  # the same text again: one passage, nothing lost
            return False
        name = f"document {doc.title or doc.id!r}"
        policy = self.result.on_duplicate
        if policy == "error":
            raise _Bad(f"{name} was already read at {doc.where} with other text; nothing of this record was "
                       "kept (--on-duplicate merge keeps both texts as passages, skip keeps the first quietly)")
        if policy == "skip":
            self.result.duplicates.append(f"{where}: skipped: {name} was already read at {doc.where} "
                                          "with other text (--on-duplicate skip)")
            return False
        self.result.duplicates.append(f"{where}: merged: {name} was already read at {doc.where}; this text "
                                      "is another passage of it (--on-duplicate merge)")
        return True

    def bad(self, where: str, reason: str) -> None:
        self.result.bad.append(BadRecord(where, reason))


def _title(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise _Bad(f"the title must be a non-empty string, got {value!r:.60}")
    if len(value) > MAX_TITLE_CHARS:
        raise _Bad(f"the title is longer than {MAX_TITLE_CHARS} characters")
    return " ".join(value.split())


def _text(value: Any, what: str = "text") -> str:
    if not isinstance(value, str) or not value.strip():
        raise _Bad(f'"{what}" must be a non-empty string, got {value!r:.60}')
    return value


def _sentences(value: Any) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(s, str) for s in value):
        raise _Bad(f"expected a non-empty list of sentence strings, got {value!r:.60}")
    if not "".join(value).strip():
        raise _Bad("all sentences are empty")
    return value


class _Pairs(dict):
    """A JSON object that remembers every (key, value) pair in order, a key given twice included
    (a plain dict keeps the last value of a repeated key and drops the others without a word)."""

    pairs: list


def _object_pairs(pairs: list) -> dict:
    obj = _Pairs(pairs)
    obj.pairs = pairs
    return obj


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"), object_pairs_hook=_object_pairs)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno})") from None


def _doc_id(path: Path, title: str) -> str:
    # readable and stable for a file: "<file stem>:<title>"; the same title in two files is two documents
    return f"{path.stem}:{title}"


def _read_corpus(path: Path, fmt: str, builder: _Builder) -> None:
    data = _load_json(path)
    source = str(path.resolve())
    if isinstance(data, dict):
        if fmt != "hotpotqa":
            raise InputError(f"{path}: a JSON object of title -> sentences is the HotpotQA corpus; "
                             f"pass --format hotpotqa (or give {fmt} as a list of {{\"title\", \"text\"}})")
        for title, sentences in getattr(data, "pairs", data.items()):
            where = f"{path}:{title!r:.80}"
            try:
                name = _title(title)
                builder.add(_doc_id(path, name), name, source, where, [with_sentences(_sentences(sentences))])
            except _Bad as bad:
                builder.bad(where, str(bad))
        return
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON object (HotpotQA corpus) or a list, got {type(data).__name__}")
    for n, record in enumerate(data):
        where = f"{path}:record {n + 1}"
        try:
            if not isinstance(record, dict):
                raise _Bad(f"expected a JSON object, got {type(record).__name__}")
            for title, pieces in _paragraphs(record, fmt):
                builder.add(_doc_id(path, title), title, source, f"{where} ({title:.60})", pieces)
        except _Bad as bad:
            builder.bad(where, str(bad))


def _paragraphs(record: dict, fmt: str) -> Iterator[tuple[str, list]]:
    """(title, passages) of one corpus record, or of the paragraphs a question record carries."""
    if "paragraphs" in record:  # a MuSiQue question
        paragraphs = record["paragraphs"]
        if not isinstance(paragraphs, list):
            raise _Bad('"paragraphs" must be a list')
        for p in paragraphs:
            if not isinstance(p, dict):
                raise _Bad('every "paragraphs" entry must be an object with "title" and "paragraph_text"')
            yield _title(p.get("title")), [split_text(_text(p.get("paragraph_text"), "paragraph_text"))]
    elif "context" in record:  # a HotpotQA or 2Wiki question: [[title, [sentences]], ...]
        context = record["context"]
        if not isinstance(context, list) or not all(isinstance(c, list) and len(c) == 2 for c in context):
            raise _Bad('"context" must be a list of [title, [sentences]] pairs')
        for title, sentences in context:
            yield _title(title), [with_sentences(_sentences(sentences))]
    else:
        title = _title(record.get("title"))
        text = record.get("text", record.get("paragraph_text"))
        if isinstance(text, list):  # sentences
            yield title, [with_sentences(_sentences(text))]
        else:
            yield title, [split_text(_text(text))]


def _read_jsonl(path: Path, builder: _Builder) -> None:
    source = str(path.resolve())
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    seen: dict[str, str] = {}
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise _Bad(f"not valid JSON ({exc.msg})") from None
            if not isinstance(record, dict):
                raise _Bad(f"expected a JSON object, got {type(record).__name__}")
            raw_id = record.get("id")
            if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)) or not str(raw_id).strip():
                raise _Bad('missing "id" (a string or number that names the document)')
            doc_id = str(raw_id).strip()
            if len(doc_id) > MAX_ID_CHARS:
                raise _Bad(f'"id" is {len(doc_id):,} characters long (limit {MAX_ID_CHARS:,})')
            if doc_id in seen and builder.result.on_duplicate == "error":
                raise _Bad(f"duplicate id {doc_id!r} (first at line {seen[doc_id]}); nothing of this record "
                           "was kept (--on-duplicate merge keeps both texts as passages, skip keeps the first)")
            title = _title(record["title"]) if record.get("title") is not None else ""
            pieces = chunk(_text(record.get("text")), builder.max_chars)
            seen.setdefault(doc_id, str(lineno))
            builder.add(doc_id, title, source, where, pieces)
        except _Bad as bad:
            builder.bad(where, str(bad))


def _read_text(path: Path, builder: _Builder) -> None:
    files = sorted(p for p in path.rglob("*.txt") if p.is_file()) if path.is_dir() else [path]
    root = path if path.is_dir() else path.parent
    if path.is_dir() and not files:
        raise InputError(f"{path}: no .txt files in this directory")
    for file in files:
        where = str(file)
        try:
            try:
                raw = file.read_text(encoding="utf-8-sig")
            except UnicodeDecodeError as exc:
                raise _Bad(f"not UTF-8 text ({exc.reason} at byte {exc.start}); convert it to UTF-8") from None
            paragraphs = [p for p in raw.replace("\r\n", "\n").split("\n\n") if p.strip()]
            if not paragraphs:
                raise _Bad("the file is empty")
            pieces = [piece for p in paragraphs for piece in chunk(" ".join(p.split()), builder.max_chars)]
            relative = file.relative_to(root).with_suffix("").as_posix()
            builder.add(f"{root.name}:{relative}", file.stem.replace("_", " "), str(file.resolve()), where, pieces)
        except _Bad as bad:
            builder.bad(where, str(bad))


# ------------------------------------------------------------------------------- pipeline


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
                "passages_embedded": self.passages_embedded,
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
    on_duplicate: str | None = None,
) -> DocIngestSummary:
    """Load a document collection; see the module docstring. One transaction per `batch_size` passages.

    embedder embeds new relation labels (relation matching), passage_embedder the
    passages not yet embedded by it (the passage_embedding vector index, dense retrieval).
    """
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

    def account(rows: _Rows, _written=None) -> None:
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
        write_behind(prepared_batches(), lambda rows: rows.write(db), account,
                     thread_name="kgtool-docs-write")
    except DRIVER_FAILURES as exc:
        raise interrupted(exc, path, committed=summary.passages, total=total, batch_size=max(1, batch_size),
                          unit="passages") from exc
    summary.documents = len(written_docs)
    summary.entities, summary.relations, summary.facts = len(entity_ids), len(relation_keys), len(fact_ids)
    if embedder is not None:
        summary.relations_embedded = load.write_relation_embeddings(db, embedder)
    if passage_embedder is not None:
        summary.passages_embedded = embed_passages(db, passage_embedder, progress=embed_progress)
    db.run_autocommit("admin/await_fulltext")  # passage retrieval sees what was just written
    summary.seconds = time.perf_counter() - t0
    return summary
