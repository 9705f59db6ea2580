"""Plain knowledge-graph files: read TSV, JSONL or N-Triples triples and load them as base facts.

Formats (`read_facts(path, format)`; by default from the extension: .tsv/.txt,
.jsonl/.ndjson, .nt):

- ``tsv``: ``head<TAB>relation<TAB>tail`` with an optional fourth column, the
  evidence sentence. Blank lines and lines starting with ``#`` are ignored, and
  so is a first line ``head<TAB>relation<TAB>tail[<TAB>evidence]``.
- ``jsonl``: one object a line, ``{"head", "relation", "tail"}`` plus optional
  ``evidence``, ``head_id``, ``tail_id``, ``relation_id`` (Wikidata Q/P ids merge
  entities and relations with edits that carry the same ids) and
  ``head_aliases``, ``tail_aliases``; other fields are ignored, as in edit files.
- ``nt``: N-Triples. IRIs become readable names (the local name, decoded, with
  underscores as spaces); ``rdfs:label``, ``skos:prefLabel``, ``schema:name`` and
  ``foaf:name`` literals (untagged or English) name their subject, ``skos:altLabel``
  and ``schema:alternateName`` add aliases, and none of them becomes a fact.
  Wikidata entity and property IRIs keep their Q/P ids.

Names written with underscores (``Barack_Obama``) are stored as ``Barack Obama``
with the original as an alias, so questions in plain words link to them;
relations written as paths or in camel case (``/people/person/place_of_birth``,
``birthPlace``) get a label in words (``place of birth``, ``birth place``).

Validation follows the edit readers (kgtool/ingest/readers.py): a bad line is
skipped and reported as ``file:line: reason``; with strict=True nothing is
written if any line is bad. The file is the facts' source,
``(:Source {id: resolved path})-[:STATES]->(:Fact)``, and every write is a MERGE,
so re-ingesting a file changes no counts and `kgtool delete --source FILE`
removes what only it stated.
"""
from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from kgtool.core.formats import FACTS, detect_format
from kgtool.errors import InputError
from kgtool.graph.db import Database
from kgtool.ingest import load
from kgtool.ingest.linking import canonical_id
from kgtool.ingest.readers import aliases_problem, text_problem, type_name
from kgtool.ingest.records import BadRecord, BaseFact
from kgtool.ingest.write_behind import write_behind

FORMATS = FACTS.formats


@dataclass
class FactsReadResult:
    format: str
    facts: list[BaseFact] = field(default_factory=list)
    bad: list[BadRecord] = field(default_factory=list)
    records_read: int = 0


def read_facts(path: str | Path, format: str | None = None) -> FactsReadResult:
    """Read a fact file; bad lines are returned in `.bad`, a file that cannot be read raises InputError."""
    path = Path(path)
    fmt = _resolve_format(path, format)
    if not path.is_file():
        raise InputError(f"{path}: no such file; check the path of the fact file")
    result = FactsReadResult(fmt)
    {"tsv": _read_tsv, "jsonl": _read_jsonl, "nt": _read_nt}[fmt](path, result)
    return result


def _resolve_format(path: Path, format: str | None) -> str:
    return detect_format(path, format, FACTS)


def _lines(path: Path) -> Iterator[tuple[int, str | None, str | None]]:
    """(line number, text, None) per non-blank line, or (line number, None, reason) for undecodable bytes."""
    with path.open("rb") as handle:
        for lineno, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield lineno, None, f"not valid UTF-8 ({exc.reason} at byte {exc.start})"
                continue
            if lineno == 1:
                text = text.removeprefix("\ufeff")
            text = text.rstrip("\r\n")
            if text.strip():
                yield lineno, text, None


# --------------------------------------------------------------------------- readable names

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WIKIDATA_ENTITY = re.compile(r"^https?://www\.wikidata\.org/(?:entity|wiki)/(Q[1-9][0-9]*)$")
_WIKIDATA_PROPERTY = re.compile(r"^https?://www\.wikidata\.org/(?:prop/(?:direct/)?|entity/|wiki/Property:)"
                                r"(P[1-9][0-9]*)$")


def _is_iri(text: str) -> bool:
    return text.startswith(("http://", "https://", "urn:", "file:", "ftp://")) and not any(c.isspace() for c in text)


def _local_name(iri: str) -> str:
    """The last segment of an IRI, percent-decoded ("http://x.org/res/Barack_Obama" -> "Barack_Obama")."""
    tail = iri.rstrip("/#")
    for sep in ("#", "/", ":"):
        if sep in tail:
            candidate = tail.rsplit(sep, 1)[1]
            if candidate:
                tail = candidate
                break
    return unquote(tail)


def readable_name(raw: str) -> tuple[str, tuple[str, ...]]:
    """(name, aliases) for an entity written as an IRI or with underscores; plain names stay as they are."""
    raw = raw.strip()
    aliases: list[str] = []
    name = raw
    if _is_iri(raw):
        name = _local_name(raw)
        aliases.append(raw)
    if "_" in name and " " not in name.strip("_"):
        spaced = " ".join(name.replace("_", " ").split())
        if spaced:
            aliases.insert(0, name)
            name = spaced
    return name, tuple(a for a in aliases if a != name)


def readable_relation(raw: str) -> str:
    """A relation label in words: the last segment of a path, IRI or dotted name, without underscores or camel case."""
    raw = raw.strip()
    if " " in raw:  # already words
        return raw
    text = _local_name(raw) if _is_iri(raw) else raw
    if "/" in text.strip("/"):
        text = text.strip("/").rsplit("/", 1)[1]
    elif text.count(".") >= 1 and " " not in text and not text.replace(".", "").isdigit():
        text = text.rsplit(".", 1)[1] or text
    if re.fullmatch(r"P[1-9][0-9]*", text):  # a Wikidata property id stays an id
        return text
    text = " ".join(_CAMEL.sub(" ", text.strip("/")).replace("_", " ").split()).lower()
    return text or raw


# --------------------------------------------------------------------------- one triple


def _fact(head: Any, relation: Any, tail: Any, where: str, *, evidence: Any = None, head_id: Any = None,
          tail_id: Any = None, relation_id: Any = None, head_aliases: Any = (), tail_aliases: Any = (),
          readable: bool = True) -> BaseFact | str:
    """A validated BaseFact, or the reason the triple is bad."""
    for name, value, required in (("head", head, True), ("relation", relation, True), ("tail", tail, True),
                                  ("evidence", evidence, False), ("head_id", head_id, False),
                                  ("tail_id", tail_id, False), ("relation_id", relation_id, False)):
        problem = text_problem(name, value, required=required)
        if problem:
            return problem
    for name, value in (("head_aliases", head_aliases), ("tail_aliases", tail_aliases)):
        problem = aliases_problem(name, value)
        if problem:
            return problem
    h_name, h_more = readable_name(head) if readable else (head.strip(), ())
    t_name, t_more = readable_name(tail) if readable else (tail.strip(), ())
    label = readable_relation(relation) if readable else relation.strip()
    if relation_id is None and re.fullmatch(r"P[1-9][0-9]*", relation.strip()):
        relation_id = relation.strip()
    for name, value in (("head", h_name), ("tail", t_name)):
        try:
            canonical_id(value)
        except InputError:
            return f"field '{name}' has no characters a name can be made of"
    return BaseFact(
        subject=h_name, relation=label, object=t_name,
        relation_id=relation_id.strip() if relation_id else None,
        subject_id=head_id.strip() if head_id else None, object_id=tail_id.strip() if tail_id else None,
        source=where, subject_aliases=_merge(h_more, head_aliases, h_name),
        object_aliases=_merge(t_more, tail_aliases, t_name),
        evidence=evidence.strip() if isinstance(evidence, str) and evidence.strip() else None,
    )


def _merge(first, second, name: str) -> tuple[str, ...]:
    out: list[str] = []
    for alias in (*first, *second):
        if alias and alias != name and alias not in out:
            out.append(alias)
    return tuple(out)


# --------------------------------------------------------------------------- TSV

_TSV_HEADER = ("head", "relation", "tail")


def _read_tsv(path: Path, result: FactsReadResult) -> None:
    for lineno, text, reason in _lines(path):
        where = f"{path}:{lineno}"
        if text is not None and text.lstrip().startswith("#"):
            continue
        cols = text.split("\t") if text is not None else []
        if text is not None and lineno == 1 and tuple(c.strip().lower() for c in cols[:3]) == _TSV_HEADER:
            continue
        result.records_read += 1
        if reason is not None:
            result.bad.append(BadRecord(where, reason))
            continue
        if len(cols) not in (3, 4):
            result.bad.append(BadRecord(where, f"expected 3 or 4 tab-separated columns (head, relation, tail, "
                                               f"evidence), got {len(cols)}"))
            continue
        fact = _fact(cols[0], cols[1], cols[2], where, evidence=cols[3] if len(cols) == 4 else None)
        _keep(result, where, fact)


def _keep(result: FactsReadResult, where: str, fact: BaseFact | str) -> None:
    if isinstance(fact, str):
        result.bad.append(BadRecord(where, fact))
    else:
        result.facts.append(fact)


# --------------------------------------------------------------------------- JSONL

_JSONL_FIELDS = ("head", "relation", "tail", "evidence", "head_id", "tail_id", "relation_id",
                 "head_aliases", "tail_aliases")


def _read_jsonl(path: Path, result: FactsReadResult) -> None:
    for lineno, text, reason in _lines(path):
        where = f"{path}:{lineno}"
        result.records_read += 1
        if reason is not None:
            result.bad.append(BadRecord(where, reason))
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            result.bad.append(BadRecord(where, f"malformed JSON: {exc.msg} (column {exc.colno})"))
            continue
        if not isinstance(obj, dict):
            result.bad.append(BadRecord(where, f"expected a JSON object, got {type_name(obj)}"))
            continue
        values = {k: obj.get(k) for k in _JSONL_FIELDS}
        for key in ("head_aliases", "tail_aliases"):
            values[key] = obj.get(key, ())
        for key in ("head_id", "tail_id", "relation_id"):
            if isinstance(values[key], int) and not isinstance(values[key], bool):
                values[key] = str(values[key])
        _keep(result, where, _fact(values.pop("head"), values.pop("relation"), values.pop("tail"), where, **values))


# --------------------------------------------------------------------------- N-Triples

_IRI = r"<([^<>\"{}|^`\\\s]*)>"
_BNODE = r"(_:[A-Za-z0-9_][A-Za-z0-9_.\-]*)"
_LITERAL = r"\"((?:[^\"\\\n\r]|\\.)*)\"(?:@([A-Za-z]+(?:-[A-Za-z0-9]+)*)|\^\^<([^<>\s]*)>)?"
_NT_LINE = re.compile(rf"^\s*(?:{_IRI}|{_BNODE})\s*{_IRI}\s*(?:{_IRI}|{_BNODE}|{_LITERAL})\s*\.\s*(?:#.*)?$")
_ESCAPES = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))")
_SIMPLE_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}

_NAME_PREDICATES = frozenset({
    "http://www.w3.org/2000/01/rdf-schema#label", "http://www.w3.org/2004/02/skos/core#prefLabel",
    "http://schema.org/name", "https://schema.org/name", "http://xmlns.com/foaf/0.1/name",
})
_ALIAS_PREDICATES = frozenset({
    "http://www.w3.org/2004/02/skos/core#altLabel", "http://schema.org/alternateName",
    "https://schema.org/alternateName",
})


def _unescape(text: str) -> str:
    def one(m: re.Match) -> str:
        if m.group(1) or m.group(2):
            return chr(int(m.group(1) or m.group(2), 16))
        return _SIMPLE_ESCAPES.get(m.group(3), "\\" + m.group(3))

    return _ESCAPES.sub(one, text)


@dataclass
class _Term:
    iri: str | None = None
    bnode: str | None = None
    literal: str | None = None
    lang: str | None = None


def _read_nt(path: Path, result: FactsReadResult) -> None:
    # two passes: a label may come after the triples that use its IRI
    triples: list[tuple[str, _Term, str, _Term]] = []
    names: dict[str, list[str]] = {}
    aliases: dict[str, list[str]] = {}
    for lineno, text, reason in _lines(path):
        where = f"{path}:{lineno}"
        if text is not None and text.lstrip().startswith("#"):
            continue
        result.records_read += 1
        if reason is not None:
            result.bad.append(BadRecord(where, reason))
            continue
        m = _NT_LINE.match(text)
        if m is None:
            result.bad.append(BadRecord(where, "not an N-Triples statement (<subject> <predicate> object .)"))
            continue
        subject = m.group(1) if m.group(1) is not None else m.group(2)  # labels are keyed by IRI or blank node
        predicate = m.group(3)
        if m.group(4) is not None:
            obj = _Term(iri=m.group(4))
        elif m.group(5) is not None:
            obj = _Term(bnode=m.group(5))
        else:
            obj = _Term(literal=_unescape(m.group(6)), lang=m.group(7))
        if obj.literal is not None and predicate in _NAME_PREDICATES | _ALIAS_PREDICATES:
            if obj.lang is None or obj.lang.lower().split("-")[0] == "en":
                bucket = names if predicate in _NAME_PREDICATES else aliases
                values = bucket.setdefault(subject, [])
                if obj.literal.strip() and obj.literal not in values:
                    values.append(obj.literal)
            continue
        triples.append((where, _Term(iri=m.group(1), bnode=m.group(2)), predicate, obj))

    def entity(term: _Term) -> tuple[str, str | None, tuple[str, ...]]:
        if term.literal is not None:
            return term.literal, None, ()
        key = term.iri or term.bnode or ""
        qid = _WIKIDATA_ENTITY.match(key)
        labels = names.get(key, [])
        local, more = readable_name(key) if term.iri else (key, ())
        if labels:
            name, extra = labels[0], (*labels[1:], local, *more)
        else:
            name, extra = local, more
        return name, qid.group(1) if qid else None, _merge(extra, aliases.get(key, ()), name)

    for where, subject, predicate, obj in triples:
        h_name, h_id, h_aliases = entity(subject)
        t_name, t_id, t_aliases = entity(obj)
        prop = _WIKIDATA_PROPERTY.match(predicate)
        label = names[predicate][0] if names.get(predicate) else readable_relation(predicate)
        fact = _fact(h_name, label, t_name, where, head_id=h_id, tail_id=t_id,
                     relation_id=prop.group(1) if prop else None, head_aliases=list(h_aliases),
                     tail_aliases=list(t_aliases), readable=False)
        _keep(result, where, fact)


# --------------------------------------------------------------------------- loading


@dataclass
class FactsIngestSummary:
    path: str
    format: str
    source: str
    records_read: int = 0
    facts_read: int = 0
    facts: int = 0
    entities: int = 0
    relations: int = 0
    relations_embedded: int = 0
    facts_embedded: int = 0  # in a document store, for the graph walk (kgtool.retrieve.fact_seeds)
    skipped: list[BadRecord] = field(default_factory=list)
    seconds: float = 0.0
    resolve: dict = field(default_factory=dict)  # entity resolution after the load (kgtool.resolve)

    @property
    def ok(self) -> bool:
        return not self.skipped

    def as_dict(self) -> dict:
        return {
            "path": self.path, "format": self.format, "source": self.source, "records_read": self.records_read,
            "facts_read": self.facts_read, "facts": self.facts, "entities": self.entities,
            "relations": self.relations, "relations_embedded": self.relations_embedded,
            "facts_embedded": self.facts_embedded, "skipped": [str(b) for b in self.skipped], "seconds": round(self.seconds, 3), "resolve": self.resolve,
        }


def fact_batches(result: FactsReadResult, path: Path, size: int) -> Iterator[tuple[int, load.GraphRows]]:
    """(first fact's index, rows) for each `size` facts of a read fact file: what streaming writes
    batch by batch and bulk loading folds into its import files."""
    source = load.source_id(path)
    props = {"path": str(path), "name": path.name, "kind": "facts", "format": result.format}
    for start in range(0, len(result.facts), size):
        rows = load.GraphRows()
        rows.source(source, props)
        load.rows_for_base_facts(rows, result.facts[start:start + size], source)
        yield start, rows


def ingest_facts(
    db: Database,
    path: str | Path,
    *,
    format: str | None = None,
    strict: bool = False,
    batch_size: int = 5000,
    embedder=None,
    progress: Callable[[int, int], None] | None = None,
    resolve: str | None = None,
    marker=None,
) -> FactsIngestSummary:
    """Load a fact file as base facts stated by the file; one transaction per `batch_size` facts.

    resolve: an entity resolver (kgtool.resolve) run on the file's entities once it is in, or
    None / "none"; ids that earlier merges absorbed are written to their survivors either way.
    marker: the run's IngestMarker (kgtool.ingest.marker) when the caller writes more afterwards
    and finishes it itself; without one the ingest starts and finishes its own."""
    from kgtool.ingest.marker import IngestMarker
    from kgtool.ingest.pipeline import DRIVER_FAILURES, interrupted, strict_error
    from kgtool.resolve.ingest import Redirector, resolve_after

    t0 = time.perf_counter()
    path = Path(path)
    result = read_facts(path, format)
    source = load.source_id(path)
    summary = FactsIngestSummary(str(path), result.format, source, records_read=result.records_read,
                                 facts_read=len(result.facts), skipped=list(result.bad))
    if strict and result.bad:
        raise strict_error(result.bad)
    own_marker = marker is None
    marker = IngestMarker(db, "facts", path) if own_marker else marker
    entities: set[str] = set()
    relations: set[str] = set()
    facts: set[str] = set()
    total = len(result.facts)
    size = max(1, batch_size)
    committed = 0  # facts of the batches written so far

    def account(batch: tuple[int, load.GraphRows], _counts) -> None:
        nonlocal committed
        start, rows = batch
        committed = min(start + size, total)
        entities.update(rows.entities)
        relations.update(rows.relations)
        facts.update(rows.facts)
        if progress:
            progress(committed, total)

    try:
        marker.start()
        redirect = Redirector(db)
        batches = ((start, redirect(rows)) for start, rows in fact_batches(result, path, size))
        write_behind(batches, lambda batch: load.write_rows(db, batch[1]), account, thread_name="kgtool-facts-write")
    except DRIVER_FAILURES as exc:
        raise interrupted(exc, path, committed=committed, total=total, batch_size=size, unit="facts") from exc
    summary.facts, summary.entities, summary.relations = len(facts), len(entities), len(relations)
    if embedder is not None:
        summary.relations_embedded = load.write_relation_embeddings(db, embedder)
    summary.resolve = resolve_after(db, resolve, entities)
    if own_marker:
        marker.finish()
    summary.seconds = time.perf_counter() - t0
    return summary
