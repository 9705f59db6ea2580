"""Plain knowledge-graph files: read TSV, JSONL or N-Triples triples and load them as base facts.

Formats (`read_facts(path, format)`; by default from the extension: .tsv/.txt,
.jsonl/.ndjson, .nt):

- ``tsv``: ``head<TAB>relation<TAB>tail`` with an optional fourth column, the
  evidence sentence. Blank lines and lines starting with ``#`` are ignored, and
  so is a first line ``head<TAB>relation<TAB>tail[<TAB>evidence]``. A first line
  naming more columns (any order, from TSV_COLUMNS: head, relation, tail, evidence,
  head_id, tail_id, relation_id, tail_type, tail_unit) makes every line carry
  those columns (an empty cell is no value).
- ``jsonl``: one object a line, ``{"head", "relation", "tail"}`` plus optional
  ``evidence``, ``head_id``, ``tail_id``, ``relation_id``,
  ``head_aliases``, ``tail_aliases``, ``tail_type``, ``tail_unit``; other fields are
  ignored, as in edit files. ``tail`` may be a JSON number or true/false (a typed
  value) or an object ``{"value", "type"?, "unit"?}``.

Ids: a Wikidata Q-id is the entity's id (shared with edits that carry it); any
other id becomes ``id:<id>``, so two things of one name with different ids stay
two entities; without an id, one normalised name is one entity.

Typed values (kgtool.ingest.literals): a tail that is a number, a date, a
boolean, a quantity with a unit or a URL (detected conservatively, or stated by
``tail_type``: entity, string, integer, float, number, date, year, boolean, url,
quantity; or by an N-Triples xsd datatype) is stored as a value of its fact, not
as an entity another fact could share. A tail with a ``tail_id`` is an entity; a
URL tail in a file whose head is an IRI is an entity (IRIs name its entities).
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
from kgtool.ingest.literals import Literal, detect, typed
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
    if fmt == "nt":
        from kgtool.ingest.facts_nt import read_nt

        read_nt(path, result)
    else:
        {"tsv": _read_tsv, "jsonl": _read_jsonl}[fmt](path, result)
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
          readable: bool = True, tail_type: Any = None, tail_unit: Any = None,
          literal: Literal | None = None) -> BaseFact | str:
    """A validated BaseFact, or the reason the triple is bad. The tail is a typed value when
    `literal` says so (N-Triples), when `tail_type` states a type, or when it reads as one
    (kgtool.ingest.literals.detect); tail_type "entity" keeps it a name."""
    if literal is None:
        found = _tail_literal(head, tail, tail_type, tail_unit, tail_id)
        if isinstance(found, str):
            return found
        literal = found
    if literal is not None:
        tail = literal.text
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
    if literal is not None:  # a value keeps the text the file wrote
        t_name, t_more = literal.text, ()
    else:
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
        object_literal=literal,
    )


def _tail_literal(head: Any, tail: Any, tail_type: Any, tail_unit: Any, tail_id: Any) -> Literal | None | str:
    """The typed value a tail is (None: a name), or the reason it is bad."""
    if isinstance(tail, dict):  # {"value": ..., "type": ..., "unit": ...}
        if "value" not in tail:
            return "field 'tail' as an object needs 'value' (and optionally 'type', 'unit')"
        tail, tail_type, tail_unit = tail["value"], tail.get("type", tail_type), tail.get("unit", tail_unit)
    for name, value in (("tail_type", tail_type), ("tail_unit", tail_unit)):
        if value is not None and not isinstance(value, str):
            return f"field '{name}' must be a string, got {type_name(value)}"
    if isinstance(tail, (int, float)) and tail_type is None:  # a JSON number or true/false
        tail_type = "boolean" if isinstance(tail, bool) else "number"
    if tail_type is not None and tail_type.strip():
        try:
            return typed(tail, tail_type.strip().lower(), tail_unit.strip() if tail_unit and tail_unit.strip() else None)
        except ValueError as exc:
            return f"field 'tail': {exc}"
    if not isinstance(tail, str) or tail_id:  # a tail with an id names an entity
        return None
    found = detect(tail)
    if found is not None and found.datatype == "url" and isinstance(head, str) and _is_iri(head.strip()):
        return None  # a file that writes its entities as IRIs: an IRI tail is an entity too
    return found


def _merge(first, second, name: str) -> tuple[str, ...]:
    out: list[str] = []
    for alias in (*first, *second):
        if alias and alias != name and alias not in out:
            out.append(alias)
    return tuple(out)


# --------------------------------------------------------------------------- TSV

_TSV_HEADER = ("head", "relation", "tail")
# the columns a header line may name, in any order (head, relation and tail among them)
TSV_COLUMNS = ("head", "relation", "tail", "evidence", "head_id", "tail_id", "relation_id", "tail_type", "tail_unit")


def _tsv_header(cols: list[str]) -> list[str] | None:
    """The column names of a header line, or None for a line of data."""
    names = [c.strip().lower() for c in cols]
    if names[:3] == list(_TSV_HEADER) and len(names) <= 4:
        return names
    if set(_TSV_HEADER) <= set(names) and all(n in TSV_COLUMNS for n in names) and len(set(names)) == len(names):
        return names
    return None


def _read_tsv(path: Path, result: FactsReadResult) -> None:
    header: list[str] | None = None
    for lineno, text, reason in _lines(path):
        where = f"{path}:{lineno}"
        if text is not None and text.lstrip().startswith("#"):
            continue
        cols = text.split("\t") if text is not None else []
        if text is not None and header is None and result.records_read == 0 and _tsv_header(cols):
            header = _tsv_header(cols)
            continue
        result.records_read += 1
        if reason is not None:
            result.bad.append(BadRecord(where, reason))
            continue
        if header is not None and len(header) > 4:
            if len(cols) != len(header):
                result.bad.append(BadRecord(where, f"expected {len(header)} tab-separated columns as the header "
                                                   f"line names ({', '.join(header)}), got {len(cols)}"))
                continue
            named = {k: (v if v.strip() else None) for k, v in zip(header, cols)}
            fact = _fact(named.pop("head") or "", named.pop("relation") or "", named.pop("tail") or "", where,
                         **named)
        elif len(cols) not in (3, 4):
            result.bad.append(BadRecord(where, f"expected 3 or 4 tab-separated columns (head, relation, tail, "
                                               f"evidence), got {len(cols)}, or a header line naming the "
                                               f"columns ({', '.join(TSV_COLUMNS)})"))
            continue
        else:
            fact = _fact(cols[0], cols[1], cols[2], where, evidence=cols[3] if len(cols) == 4 else None)
        _keep(result, where, fact)


def _keep(result: FactsReadResult, where: str, fact: BaseFact | str) -> None:
    if isinstance(fact, str):
        result.bad.append(BadRecord(where, fact))
    else:
        result.facts.append(fact)


# --------------------------------------------------------------------------- JSONL

_JSONL_FIELDS = ("head", "relation", "tail", "evidence", "head_id", "tail_id", "relation_id",
                 "head_aliases", "tail_aliases", "tail_type", "tail_unit")


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
    values: int = 0  # facts whose object is a typed value (kgtool.ingest.literals), not an entity
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
            "facts_read": self.facts_read, "facts": self.facts, "entities": self.entities, "values": self.values,
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
    literals: set[str] = set()
    relations: set[str] = set()
    facts: set[str] = set()
    total = len(result.facts)
    size = max(1, batch_size)
    committed = 0  # facts of the batches written so far

    def account(batch: tuple[int, load.GraphRows], _counts) -> None:
        nonlocal committed
        start, rows = batch
        committed = min(start + size, total)
        entities.update(k for k in rows.entities if k not in rows.literals)  # a value is no entity
        literals.update(rows.literals)
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
    summary.values = len(literals)
    if embedder is not None:
        summary.relations_embedded = load.write_relation_embeddings(db, embedder)
    summary.resolve = resolve_after(db, resolve, entities)
    db.run_autocommit("admin/await_fulltext")  # a question asked next finds the new names (near_names' index)
    if own_marker:
        marker.finish()
    summary.seconds = time.perf_counter() - t0
    return summary
