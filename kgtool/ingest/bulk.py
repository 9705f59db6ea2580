"""Bulk load into an empty local store: streaming's front half, Neo4j's offline importer for the writes.

`ingest_edits_bulk` / `ingest_facts_bulk` read, extract and refine exactly as
streaming ingest does (kgtool/ingest/pipeline.py, facts.py) and build the same
per-batch `GraphRows`. Instead of sending each batch through the MERGE
statements of cypher/ingest/, `BulkGraph` folds the batches together with the
semantics of those statements (first write creates, aliases and phrasings
accumulate, `SET +=` overwrites, the first ingestion stamp stays), so the
folded graph is the one streaming leaves behind. It is written as CSV import
files (typed headers, ids as the import id space), the local server is stopped,
`neo4j-admin database import full` replaces the empty `neo4j` database, the
server is started again (kgtool/graph/bulk_import.py), and then:

- the schema (cypher/schema.cypher) is applied and its indexes awaited;
- the empty lists the importer cannot write are set (cypher/bulk/);
- conflict flags and verdicts and the fact statuses they change are computed
  by streaming's own statements (ingest/flag_conflicts, resolve_conflicts,
  update_fact_status) for the slots with more than one edit; every other
  edit is 'active' and every other fact's status follows from what asserts
  or supersedes it, which the files already carry;
- the entity-linking keys (NameKey, NAMES, LinkIndex) that GraphLinker.sync
  would write on the first answer are in the files already;
- relation embeddings when an embedder is given, and the full-text refresh.

A store that holds any node is refused, and so is a file with bad lines (all
of them listed, as streaming's --strict does), before the server is stopped.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kgtool.config import Settings
from kgtool.errors import InputError
from kgtool.graph.bulk_import import ImportFiles, import_full, local_server
from kgtool.graph.db import Database
from kgtool.ingest import load
from kgtool.ingest.facts import FactsIngestSummary, fact_batches, read_facts
from kgtool.ingest.linking import MAX_SPAN_TOKENS, name_keys, word_spans
from kgtool.ingest.pipeline import EditRows, IngestSummary, check_no_conflicts
from kgtool.ingest.records import BadRecord

Progress = Callable[[int, int], None]
Phase = Callable[[str], None]

# slots per transaction when the conflict statements run after the import
_CONFLICT_BATCH = 1000
_INDEX_WAIT_SECONDS = 3600


# --------------------------------------------------------------------------- the folded graph


@dataclass
class BulkGraph:
    """The graph that writing a sequence of GraphRows with cypher/ingest/ would leave in an empty store."""

    entities: dict[str, dict] = field(default_factory=dict)
    relations: dict[str, dict] = field(default_factory=dict)
    facts: dict[str, dict] = field(default_factory=dict)
    edits: dict[str, dict] = field(default_factory=dict)  # id -> {props, fact_ids (dict as ordered set), order}
    supersedes: dict[tuple[str, str], None] = field(default_factory=dict)
    passages: dict[str, dict] = field(default_factory=dict)
    sources: dict[str, dict] = field(default_factory=dict)
    slot_edits: dict[str, list[str]] = field(default_factory=dict)

    def add(self, rows: load.GraphRows) -> None:
        for row in rows.entities.values():  # ingest/merge_entities
            have = self.entities.get(row["id"])
            if have is None:
                self.entities[row["id"]] = {"id": row["id"], "name": row["name"], "norm": row["norm"],
                                            "qid": row["qid"], "aliases": list(row["aliases"])}
            else:
                for alias in row["aliases"]:
                    if alias not in have["aliases"] and alias != have["name"]:
                        have["aliases"].append(alias)
        for row in rows.relations.values():  # ingest/merge_relations
            have = self.relations.get(row["key"])
            if have is None:
                self.relations[row["key"]] = {"key": row["key"], "label": row["label"],
                                              "relation_id": row["relation_id"], "phrases": list(row["phrases"])}
            else:
                have["phrases"].extend(p for p in row["phrases"] if p not in have["phrases"])
        for row in rows.facts.values():  # ingest/merge_facts
            have = self.facts.get(row["id"])
            if have is None:
                self.facts[row["id"]] = dict(row)
            elif row["source"] == "edit":
                # ON MATCH: the items of a SET apply in order, so by the time the evidence
                # item is read the source is already 'edit' and the evidence stays
                have["source"] = "edit"
        for row in rows.edits:  # ingest/merge_edits (SET += : later values win, nulls remove)
            have = self.edits.get(row["id"])
            if have is None:
                have = self.edits[row["id"]] = {"props": {}, "fact_ids": {}, "order": None}
            have["props"].update(row["props"])
            have["fact_ids"].update(dict.fromkeys(row["fact_ids"]))
            slot = row["props"]["slot"]
            same_slot = self.slot_edits.setdefault(slot, [])
            if row["id"] not in same_slot:
                same_slot.append(row["id"])
        for row in rows.edit_order:  # ingest/merge_edits: the first stamp stays
            have = self.edits.get(row["id"])
            if have is not None and have["order"] is None:
                have["order"] = (row["ingested_at"], row["position"])
        for row in rows.supersedes:  # ingest/merge_edits: SUPERSEDES
            self.supersedes[(row["edit_id"], row["fact_id"])] = None
        for row in rows.passages.values():  # ingest/merge_passages
            have = self.passages.get(row["id"])
            if have is None:
                have = self.passages[row["id"]] = {"fact_ids": {}}
            have["title"], have["text"] = row["title"], row["text"]
            have["fact_ids"].update(dict.fromkeys(row["fact_ids"]))
        for row in rows.source_rows():  # ingest/merge_sources
            have = self.sources.get(row["id"])
            if have is None:
                have = self.sources[row["id"]] = {"props": {}, "states": {}}
            have["props"].update(row["props"])
            for stated in row["facts"]:
                have["states"].setdefault(stated["fact_id"], stated["evidence"])

    def conflicted_slots(self) -> list[str]:
        """Slots two or more edits set: only there can flags and verdicts differ from 'active'."""
        return sorted(slot for slot, ids in self.slot_edits.items() if len(ids) > 1)

    def fact_statuses(self) -> dict[str, str]:
        """ingest/update_fact_status with every edit in force; conflicted slots are redone in Cypher."""
        asserted = {fid for edit in self.edits.values() for fid in edit["fact_ids"]}
        superseded = {fid for _eid, fid in self.supersedes}
        return {fid: "active" if fid in asserted or fid not in superseded else "superseded" for fid in self.facts}


# --------------------------------------------------------------------------- import files


class _Writer:
    """Rows in the importer's CSV dialect: strings quoted, nulls as empty unquoted fields.

    Each column gets the converter of its header type, so a cell costs one call.
    """

    def __init__(self, array_delimiter: str):
        self.delim = array_delimiter
        self.multiline = False

    def _convert(self, kind: str):
        delim = self.delim

        def text(v):
            return "" if v is None else '"' + str(v).replace('"', '""') + '"'

        def array(v):
            if v is None:
                return ""
            for item in v:
                if delim in item:
                    raise InputError(f"the value {item!r} contains the character U+{ord(delim):04X}, which the "
                                     "bulk importer uses between list items; remove it or load without --bulk")
            return text(delim.join(v))

        def number(v):
            return "" if v is None else repr(v)

        def boolean(v):
            return "" if v is None else ("true" if v else "false")

        return {"string[]": array, "long": number, "double": number, "boolean": boolean}.get(kind, text)

    def write(self, path: Path, header: list[str], rows) -> int:
        """Write the file; returns how many rows it has."""
        converters = [self._convert(h.rsplit(":", 1)[1] if ":" in h and not h.endswith(")") else "string")
                      for h in header]
        count = 0
        multiline = False
        with path.open("w", encoding="utf-8", newline="") as fh:
            fh.write(",".join(header) + "\n")
            for row in rows:
                line = ",".join([convert(v) for convert, v in zip(converters, row)])
                if not multiline and ("\n" in line or "\r" in line):
                    multiline = True
                fh.write(line + "\n")
                count += 1
        self.multiline = self.multiline or multiline
        return count


def _type_of(values) -> str:
    for value in values:
        if value is None:
            continue
        if isinstance(value, bool):
            return "boolean"
        if isinstance(value, int):
            return "long"
        if isinstance(value, float):
            return "double"
        if isinstance(value, (list, tuple)):
            return "string[]"
        return "string"
    return "string"


def _node_file(writer: _Writer, path: Path, label: str, id_key: str, records: list[dict]) -> Path:
    """One label's nodes; the columns are the union of the records' keys, typed from their values."""
    keys: dict[str, None] = {}
    for record in records:
        keys.update(dict.fromkeys(record))
    keys.pop(id_key, None)
    columns = list(keys)
    header = [f"{id_key}:ID({label})"] + [f"{k}:{_type_of(r.get(k) for r in records)}" for k in columns]
    writer.write(path, header, ([r[id_key]] + [r.get(k) for k in columns] for r in records))
    return path


def write_import_files(graph: BulkGraph, out: Path, statuses: dict[str, str]) -> ImportFiles:
    """The node and relationship CSV files of `graph`, with linking keys and first-pass statuses.

    The graph's own row dicts get the extra properties in place (no copies: at a million
    edits a copy of every row costs gigabytes), so the graph is spent afterwards.
    """
    writer = _Writer(ImportFiles.array_delimiter)
    files = ImportFiles()

    # the linking keys GraphLinker.sync writes (cypher/link/write_keys, mark_state)
    entities, names, keys, longest = [], [], {}, 1
    for e in graph.entities.values():
        entity_keys = name_keys(e["name"], e["aliases"])
        for k in entity_keys:
            keys[k["key"]] = None
            names.append((k["key"], e["id"], k["surface"], k["primary"]))
            # a name has at most one word per character: only longer ones can raise the maximum
            if longest < MAX_SPAN_TOKENS and len(k["surface"]) > longest:
                longest = max(longest, len(word_spans(k["surface"])))
        e.update(alias_text=" | ".join(e["aliases"]), link_name=e["name"] or "", link_aliases=len(e["aliases"]))
        entities.append(e)
    link_index = {"id": "entity-names", "entities": len(entities), "max_tokens": min(longest, MAX_SPAN_TOKENS)}

    facts = list(graph.facts.values())
    for fact in facts:
        fact["status"] = statuses[fact["id"]]
    edits = []
    for eid, edit in graph.edits.items():
        ingested_at, position = edit["order"] if edit["order"] else (None, None)
        edit["props"].update(id=eid, ingested_at=ingested_at, position=position, status="active")
        edits.append(edit["props"])
    passages = [{"id": pid, "title": p["title"], "text": p["text"]} for pid, p in graph.passages.items()]
    sources = [{"id": sid, **s["props"]} for sid, s in graph.sources.items()]

    for label, id_key, records in (
        ("Entity", "id", entities), ("Relation", "key", list(graph.relations.values())), ("Fact", "id", facts),
        ("Edit", "id", edits), ("Passage", "id", passages), ("Source", "id", sources),
        ("LinkIndex", "id", [link_index]),
    ):
        if records:
            files.nodes.append((label, _node_file(writer, out / f"nodes-{label}.csv", label, id_key, records)))
    if keys:
        path = out / "nodes-NameKey.csv"
        writer.write(path, ["key:ID(NameKey)"], ((k,) for k in keys))
        files.nodes.append(("NameKey", path))

    def rels(rtype: str, start: str, end: str, rows, props: tuple[tuple[str, str], ...] = ()) -> None:
        header = [f":START_ID({start})", f":END_ID({end})"] + [f"{name}:{kind}" for name, kind in props]
        path = out / f"rels-{rtype}.csv"
        # the importer refuses a file whose id spaces no node file declares (no edits: no Edit space)
        if writer.write(path, header, rows):
            files.relationships.append((rtype, path))
        else:
            path.unlink()

    rels("SUBJECT_OF", "Entity", "Fact", ((f["head_id"], fid) for fid, f in graph.facts.items()))
    rels("OBJECT", "Fact", "Entity", ((fid, f["tail_id"]) for fid, f in graph.facts.items()))
    rels("ASSERTS", "Edit", "Fact", ((eid, fid) for eid, e in graph.edits.items() for fid in e["fact_ids"]))
    rels("SUPERSEDES", "Edit", "Fact", iter(graph.supersedes))
    rels("SUPPORTS", "Passage", "Fact", ((pid, fid) for pid, p in graph.passages.items() for fid in p["fact_ids"]))
    rels("STATES", "Source", "Fact", ((sid, fid, ev) for sid, s in graph.sources.items()
                                      for fid, ev in s["states"].items()), (("evidence", "string"),))
    rels("NAMES", "NameKey", "Entity", iter(names), (("surface", "string"), ("primary", "boolean")))
    files.multiline = writer.multiline
    return files


# --------------------------------------------------------------------------- the load


@dataclass
class BulkPhases:
    """Seconds per phase of a bulk load, in the order they ran."""

    seconds: dict[str, float] = field(default_factory=dict)
    import_report: str = ""
    import_log: str = ""

    def timed(self, name: str, since: float) -> float:
        now = time.perf_counter()
        self.seconds[name] = round(now - since, 3)
        return now


@dataclass
class BulkIngestSummary(IngestSummary):
    phases: BulkPhases = field(default_factory=BulkPhases)

    def as_dict(self) -> dict:
        return {**super().as_dict(), "bulk": True, "phases": dict(self.phases.seconds),
                "import_report": self.phases.import_report}


def _refuse_bad(bad: list[BadRecord], limit: int = 50) -> None:
    if not bad:
        return
    shown = "\n".join(f"  {b}" for b in bad[:limit])
    more = f"\n  ... and {len(bad) - limit} more" if len(bad) > limit else ""
    raise InputError(f"{len(bad)} bad record(s); nothing was imported and the store is unchanged (--bulk loads a "
                     f"file whole: fix these lines, or load without --bulk to skip them):\n{shown}{more}")


def check_empty(db: Database, settings: Settings) -> None:
    """Refuse a store that holds anything: the import replaces the whole database."""
    nodes = db.read("bulk/store_nodes")[0]["nodes"]
    if nodes:
        server = local_server(settings)
        raise InputError(
            f"the store at {server.home} ({server.uri}) holds {nodes:,} node(s); --bulk only loads into an empty "
            "store because the import replaces the whole database. Load into a fresh home (set KGTOOL_HOME to a "
            "new directory), or ingest this file without --bulk to add it to this store"
        )


def _connect_local(settings: Settings) -> Database:
    local_server(settings)  # refuses NEO4J_URI before anything starts
    return Database.connect(settings)


def _import_and_finish(settings: Settings, graph: BulkGraph, phases: BulkPhases, *, embedder,
                       phase: Phase | None) -> tuple[int, int, int]:
    """Files, import, schema, post-processing; returns (conflict pairs, overridden edits, relations embedded)."""
    say = phase or (lambda _name: None)
    t = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="bulk-", dir=_private_import_dir(settings)))
    try:
        say("writing the import files")
        files = write_import_files(graph, work, graph.fact_statuses())
        t = phases.timed("import files", t)
        say("stopping Neo4j and running neo4j-admin database import full")
        outcome = import_full(settings, files, work_dir=work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    phases.seconds["server stop"] = round(outcome.seconds_stop, 3)
    phases.seconds["import"] = round(outcome.seconds_import, 3)
    phases.seconds["server start"] = round(outcome.seconds_start, 3)
    phases.import_report, phases.import_log = str(outcome.report_file), str(outcome.log_file)
    t = time.perf_counter()
    with Database.connect(settings) as db:
        say("applying the schema")
        db.apply_schema()
        db.read("bulk/await_indexes", seconds=_INDEX_WAIT_SECONDS)
        t = phases.timed("schema", t)
        say("conflicts, empty lists, embeddings")
        db.run_autocommit("bulk/empty_entity_aliases")
        db.run_autocommit("bulk/empty_relation_phrases")
        pairs, overridden = 0, 0
        slots = graph.conflicted_slots()
        for start in range(0, len(slots), _CONFLICT_BATCH):
            chunk = slots[start:start + _CONFLICT_BATCH]
            flagged, resolved, _ = db.write_many([
                ("ingest/flag_conflicts", {"slots": chunk}),
                ("ingest/resolve_conflicts", {"slots": chunk}),
                ("ingest/update_fact_status", {"fact_ids": [], "slots": chunk}),
            ])
            pairs += flagged[0]["conflicts"] if flagged else 0
            overridden += sum(1 for r in resolved if r["after"] == "superseded-by-conflict")
        embedded = load.write_relation_embeddings(db, embedder) if embedder is not None else 0
        db.run_autocommit("admin/await_fulltext")
        phases.timed("post-processing", t)
    return pairs, overridden, embedded


def _private_import_dir(settings: Settings) -> Path:
    # next to the store (same disk), readable by the owner only, like the store itself
    path = local_server(settings).home / "import"
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def ingest_edits_bulk(
    settings: Settings,
    path: str | Path,
    *,
    format: str | None = None,
    extractor="anchor",
    eatr: bool = True,
    batch: str | None = None,
    batch_size: int = 2000,
    embedder=None,
    progress: Progress | None = None,
    phase: Phase | None = None,
    conflicts: str = "latest",
) -> BulkIngestSummary:
    """Bulk-load an edit corpus into the empty local store; see the module docstring."""
    from kgtool.ingest.readers import read_edits

    t0 = t = time.perf_counter()
    if conflicts not in load.CONFLICT_POLICIES:
        raise InputError(f"unknown conflict policy {conflicts!r}; use one of: {', '.join(load.CONFLICT_POLICIES)}")
    phases = BulkPhases()
    path = Path(path)
    with _connect_local(settings) as db:
        check_empty(db, settings)
        result = read_edits(path, format)
        _refuse_bad(result.bad)
        if conflicts == "fail":
            check_no_conflicts(db, result.edits)
    summary = BulkIngestSummary(str(path), batch or path.stem, conflict_policy=conflicts, phases=phases)
    summary.records_read = len(result.edits)
    t = phases.timed("read", t)

    # streaming's front half, batch for batch, so the rows are the same
    front = EditRows(result, path, summary, extractor=extractor, eatr=eatr, delta_rel=settings.delta_rel,
                     embedder=embedder, settings=settings, conflicts=conflicts)
    graph = BulkGraph()
    base = front.base_fact_rows()
    if base is not None:
        graph.add(base)
    total = len(result.edits)
    for start in range(0, total, batch_size):
        graph.add(front.batch(start, batch_size))
        if progress:
            progress(min(start + batch_size, total), total)
    phases.timed("extract + EATR + rows", t)
    result = front = None  # the records and models are done with; the graph holds what is written

    summary.conflicts, summary.superseded_by_conflict, summary.relations_embedded = _import_and_finish(
        settings, graph, phases, embedder=embedder, phase=phase)
    summary.seconds = time.perf_counter() - t0
    return summary


@dataclass
class BulkFactsSummary(FactsIngestSummary):
    """What `ingest_facts_bulk` loaded: streaming's summary plus the phases."""

    phases: BulkPhases = field(default_factory=BulkPhases)

    def as_dict(self) -> dict:
        return {**super().as_dict(), "bulk": True, "phases": dict(self.phases.seconds),
                "import_report": self.phases.import_report}


def ingest_facts_bulk(
    settings: Settings,
    path: str | Path,
    *,
    format: str | None = None,
    batch_size: int = 5000,
    embedder=None,
    progress: Progress | None = None,
    phase: Phase | None = None,
) -> BulkFactsSummary:
    """Bulk-load a fact file (TSV, JSONL, N-Triples) into the empty local store."""

    t0 = t = time.perf_counter()
    phases = BulkPhases()
    path = Path(path)
    with _connect_local(settings) as db:
        check_empty(db, settings)
        result = read_facts(path, format)
        _refuse_bad(result.bad)
    summary = BulkFactsSummary(str(path), result.format, load.source_id(path), records_read=result.records_read,
                               facts_read=len(result.facts), phases=phases)
    t = phases.timed("read", t)
    graph = BulkGraph()
    total, size = len(result.facts), max(1, batch_size)
    for start, rows in fact_batches(result, path, size):  # streaming's batches
        graph.add(rows)
        if progress:
            progress(min(start + size, total), total)
    summary.facts, summary.entities, summary.relations = len(graph.facts), len(graph.entities), len(graph.relations)
    phases.timed("rows", t)
    _pairs, _overridden, summary.relations_embedded = _import_and_finish(settings, graph, phases,
                                                                         embedder=embedder, phase=phase)
    summary.seconds = time.perf_counter() - t0
    return summary
