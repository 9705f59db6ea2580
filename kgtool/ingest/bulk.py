"""Bulk load into an empty local store: streaming's front half, Neo4j's offline importer for the writes.

`ingest_edits_bulk` / `ingest_facts_bulk` read, extract and refine exactly as
streaming ingest does (kgtool/ingest/pipeline.py EditRows, facts.py) and get
the same per-batch `GraphRows`. Instead of sending each batch through the
MERGE statements of cypher/ingest/, `StreamFold` applies the semantics of
those statements (first write creates, aliases and phrasings accumulate, an
edit fact stays an edit fact, the first ingestion stamp stays) and writes the
import files batch by batch as it goes (kgtool/graph/bulk_import.py
CsvTable), so the folded graph is the one streaming leaves behind and memory
does not grow with the file:

- edits, passages and every relationship of a batch are written at once (an
  edit id occurs once in a file: the readers refuse a second one);
- a fact's or an entity's first row goes to a spill file, because a later
  batch can still turn the fact into an edit fact, change its status or add
  aliases to the entity; what stays in memory is the id with a few flag bits
  (facts) or the aliases stated after the first row (entities), the
  relations, a slot's hash with the object its first edit sets (to find the
  slots set to two or more objects) and, for JSONL, the edit ids (the
  reader's duplicate check). The
  spill files become the Fact and Entity files, with the linking keys, at
  the end, while the server stops.

A JSONL file is read line by line; a MQuAKE file is one JSON document and is
read whole. Then the local server is stopped, `neo4j-admin database import
full` replaces the empty `neo4j` database, the server is started again
(kgtool/graph/bulk_import.py), and then:

- the schema (cypher/schema.cypher) is applied and its indexes awaited
  (Community's importer cannot build indexes itself: its --schema option
  needs the block format of Enterprise Edition);
- the empty lists the importer cannot write are set (cypher/bulk/);
- conflict flags and verdicts and the fact statuses they change are computed
  by streaming's own statements (ingest/flag_conflicts, resolve_conflicts,
  update_fact_status) for the slots whose edits set more than one object;
  every other edit is 'active' and every other fact's status follows from what asserts
  or supersedes it, which the files already carry;
- the entity-linking keys (NameKey, NAMES, LinkIndex) that GraphLinker.sync
  would write on the first answer are in the files already;
- relation embeddings when an embedder is given, and the full-text refresh.

A store that holds any node is refused, and so is a file with bad lines (all
of them listed, as streaming's --strict does) or, under --conflicts fail,
with conflicting edits, before the server is stopped.
"""
from __future__ import annotations

import marshal
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from operator import itemgetter
from pathlib import Path

from kgtool.config import Settings
from kgtool.errors import InputError
from kgtool.graph.bulk_import import (
    BackgroundStop,
    CsvTable,
    ImportFiles,
    check_list_items,
    import_full,
    local_server,
)
from kgtool.graph.db import Database
from kgtool.ingest import load
from kgtool.ingest.facts import FactsIngestSummary, fact_batches, read_facts
from kgtool.ingest.linking import MAX_SPAN_TOKENS, name_keys, word_spans
from kgtool.ingest.pipeline import EditRows, IngestSummary
from kgtool.ingest.readers import count_lines, edit_format, iter_jsonl
from kgtool.ingest.records import BadRecord, EditRecord, ReadResult
from kgtool.ingest.write_behind import fewer_collections

Progress = Callable[[int, int], None]
Phase = Callable[[str], None]

# slots per transaction when the conflict statements run after the import
_CONFLICT_BATCH = 1000
_INDEX_WAIT_SECONDS = 3600

# what later batches can change about a fact, as bits of one small int per fact id
_EDIT_SOURCE = 1  # some row of it came from an edit (ingest/merge_facts ON MATCH)
_ASSERTED = 2  # an edit asserts it
_SUPERSEDED = 4  # an edit replaces it
_STATED = 8  # the file's Source STATES it (the first evidence stays)
_BASE_SOURCE = 16  # its first row came from base knowledge


# --------------------------------------------------------------------------- the fold


class _Spill:
    """Rows written to a scratch file batch by batch and read back once: each batch one marshal
    blob behind its length (marshal.load on a file would call read() per object)."""

    def __init__(self, path: Path):
        self.path = path
        self._fh = path.open("wb")

    def add(self, rows: list[tuple]) -> None:
        if rows:
            blob = marshal.dumps(rows)
            self._fh.write(len(blob).to_bytes(8, "little"))
            self._fh.write(blob)

    def __iter__(self) -> Iterator[tuple]:
        self._fh.close()
        with self.path.open("rb") as fh:
            while size := fh.read(8):
                yield from marshal.loads(fh.read(int.from_bytes(size, "little")))
        self.path.unlink()


_PUNCT = re.compile(r"[^\w\s]")


def _most_words(surface: str) -> int:
    """An upper bound of len(word_spans(surface)), at C speed: a whitespace-separated run is one
    word plus at most two more per punctuation mark in it (a quote or a closing mark splits one
    off, a hyphen between letters two, the apostrophe of 's one)."""
    return len(surface.split()) + 2 * len(_PUNCT.findall(surface))


class StreamFold:
    """The graph that writing a sequence of GraphRows with cypher/ingest/ would leave in an empty
    store, written as import files while the rows come (see the module docstring)."""

    def __init__(self, out: Path):
        self.out = out
        self.entities: dict[str, list[str] | None] = {}  # id -> aliases stated after its first row
        self.facts: dict[str, int] = {}  # id -> _EDIT_SOURCE | _ASSERTED | ... bits
        self.evidence: dict[str, str] = {}  # id -> the evidence of a base fact an edit asserted later
        self.relations: dict[str, dict] = {}
        self.sources: dict[str, dict] = {}
        self.edits = 0
        # slot (as its hash: an int is a fraction of the string's memory) -> the object id its first
        # edit sets. Two slots with one hash can only add a slot whose verdicts come out of the
        # conflict statements as they went in (see ingest/contested_slots), never hide one
        self._slots: dict[int, str] = {}
        self.conflicted: dict[str, None] = {}  # the slots whose edits set more than one object
        self._entity_spill = _Spill(out / "entities.spill")
        self._fact_spill = _Spill(out / "facts.spill")
        self._entity_keys: list[str] | None = None
        self._fact_keys: list[str] | None = None
        self._edit_keys: list[str] | None = None
        self._edits: CsvTable | None = None
        self._passages = CsvTable(out, "nodes-Passage", [("id", "ID(Passage)"), ("title", None), ("text", None)])
        self._rels = {
            rtype: CsvTable(out, f"rels-{rtype}", [("", f"START_ID({start})"), ("", f"END_ID({end})"), *props])
            for rtype, start, end, props in (
                ("SUBJECT_OF", "Entity", "Fact", ()), ("OBJECT", "Fact", "Entity", ()),
                ("ASSERTS", "Edit", "Fact", ()), ("SUPERSEDES", "Edit", "Fact", ()),
                ("SUPPORTS", "Passage", "Fact", ()), ("STATES", "Source", "Fact", (("evidence", "string"),)),
                ("NAMES", "NameKey", "Entity", (("surface", "string"), ("primary", "boolean"))),
            )
        }

    def add(self, rows: load.GraphRows) -> None:
        self._add_entities(rows.entities.values())
        self._add_relations(rows.relations.values())
        self._add_facts(rows.facts.values())
        self._add_edits(rows)
        self._add_passages(rows.passages.values())
        self._add_sources(rows.source_rows())

    def _add_entities(self, rows) -> None:  # ingest/merge_entities
        known, new = self.entities, []
        for row in rows:
            eid = row["id"]
            # refused here, while the server still runs, rather than when the Entity file is written
            if row["aliases"]:
                check_list_items(row["aliases"])
            if eid not in known:
                known[eid] = None
                new.append(row)
            elif row["aliases"]:
                # kept as stated and filtered against the first row's aliases and name at the end,
                # which is what merging them batch by batch amounts to
                later = known[eid]
                if later is None:
                    known[eid] = list(row["aliases"])
                else:
                    later.extend(a for a in row["aliases"] if a not in later)
        if new:
            if self._entity_keys is None:
                self._entity_keys = ["id", *(k for k in new[0] if k != "id")]
            get = itemgetter(*self._entity_keys)
            self._entity_spill.add([get(row) for row in new])

    def _add_relations(self, rows) -> None:  # ingest/merge_relations
        for row in rows:
            check_list_items(row["phrases"])
            have = self.relations.get(row["key"])
            if have is None:
                self.relations[row["key"]] = {**row, "phrases": list(row["phrases"])}
            else:
                have["phrases"].extend(p for p in row["phrases"] if p not in have["phrases"])

    def _add_facts(self, rows) -> None:  # ingest/merge_facts
        facts, new = self.facts, []
        for row in rows:
            fid = row["id"]
            flags = facts.get(fid)
            if flags is None:
                facts[fid] = {"edit": _EDIT_SOURCE, "base": _BASE_SOURCE}.get(row["source"], 0)
                new.append(row)
            elif row["source"] == "edit" and not flags & _EDIT_SOURCE:
                # ON MATCH: the source becomes 'edit' and, when it was 'base', the evidence the
                # edit's (the items of one SET all read the values from before it)
                facts[fid] = flags | _EDIT_SOURCE
                if flags & _BASE_SOURCE:
                    self.evidence[fid] = row["evidence"]
        if new:
            if self._fact_keys is None:
                self._fact_keys = ["id", *(k for k in new[0] if k != "id")]
            get = itemgetter(*self._fact_keys)
            self._fact_spill.add([get(row) for row in new])
            self._rels["SUBJECT_OF"].add([(row["head_id"], row["id"]) for row in new])
            self._rels["OBJECT"].add([(row["id"], row["tail_id"]) for row in new])

    def _add_edits(self, rows: load.GraphRows) -> None:  # ingest/merge_edits
        if not rows.edits:
            return
        facts = self.facts
        stamps: dict[str, tuple] = {}
        for row in rows.edit_order:
            stamps.setdefault(row["id"], (row["ingested_at"], row["position"]))  # the first stamp stays
        if self._edits is None:
            self._edit_keys = list(rows.edits[0]["props"])
            columns = [("id", "ID(Edit)"), *((k, None) for k in self._edit_keys),
                       ("ingested_at", None), ("position", None), ("status", "string")]
            self._edits = CsvTable(self.out, "nodes-Edit", columns)
        keys = self._edit_keys
        get = itemgetter(*keys)
        cells, asserts = [], []
        for row in rows.edits:
            eid, props = row["id"], row["props"]
            if len(props) != len(keys):
                raise InputError(f"edit {eid!r} has the properties {sorted(props)}, the file's first edit "
                                 f"{sorted(keys)}; --bulk writes one set of columns per label: load without --bulk")
            ingested_at, position = stamps.get(eid, (None, None))
            # conflicting edits get their verdicts after the import (slots set to more than one object)
            cells.append((eid, *get(props), ingested_at, position, "active"))
            for fid in row["fact_ids"]:
                facts[fid] |= _ASSERTED
                asserts.append((eid, fid))
            slot = props["slot"]
            if self._slots.setdefault(hash(slot), props["object_id"]) != props["object_id"]:
                self.conflicted[slot] = None
        self._edits.add(cells)
        self.edits += len(cells)
        self._rels["ASSERTS"].add(asserts)
        superseded = []
        for row in rows.supersedes:
            facts[row["fact_id"]] |= _SUPERSEDED
            superseded.append((row["edit_id"], row["fact_id"]))
        self._rels["SUPERSEDES"].add(superseded)

    def _add_passages(self, rows) -> None:  # ingest/merge_passages (one per edit: written once)
        rows = list(rows)
        self._passages.add([(row["id"], row["title"], row["text"]) for row in rows])
        self._rels["SUPPORTS"].add([(row["id"], fid) for row in rows for fid in row["fact_ids"]])

    def _add_sources(self, rows) -> None:  # ingest/merge_sources
        facts, states = self.facts, []
        for row in rows:
            have = self.sources.get(row["id"])
            if have is None:
                if self.sources:
                    raise InputError("a bulk load reads one file, so one Source states its facts; "
                                     f"got {sorted(self.sources)} and {row['id']!r}")
                have = self.sources[row["id"]] = {}
            have.update(row["props"])
            for stated in row["facts"]:
                fid = stated["fact_id"]
                if not facts[fid] & _STATED:  # ON CREATE: the first evidence stays
                    facts[fid] |= _STATED
                    states.append((row["id"], fid, stated["evidence"]))
        self._rels["STATES"].add(states)

    def conflicted_slots(self) -> list[str]:
        """Slots whose edits set two or more objects: only there can flags and verdicts differ from 'active'."""
        return sorted(self.conflicted)

    # ----------------------------------------------------------------------- the last files

    def finish(self) -> ImportFiles:
        """Write the Fact, Entity, linking-key, Relation and Source files and close every file."""
        files = ImportFiles()
        tables: list[tuple[str, CsvTable, bool]] = []  # (label or type, table, is a node file)

        if self._fact_keys is not None:
            keys = self._fact_keys
            facts = CsvTable(self.out, "nodes-Fact",
                             [("id", "ID(Fact)"), *((k, None) for k in keys if k != "id"), ("status", "string")])
            source_cell, evidence_cell = keys.index("source"), keys.index("evidence")
            flags_of, evidence_of, batch = self.facts, self.evidence, []
            for row in self._fact_spill:
                fid = row[0]
                flags = flags_of[fid]
                cells = list(row)
                if flags & _EDIT_SOURCE:
                    cells[source_cell] = "edit"
                    if fid in evidence_of:
                        cells[evidence_cell] = evidence_of[fid]
                # ingest/update_fact_status with every edit in force; conflicted slots are redone in Cypher
                cells.append("active" if flags & _ASSERTED or not flags & _SUPERSEDED else "superseded")
                batch.append(cells)
                if len(batch) >= 5000:
                    facts.add(batch)
                    batch = []
            facts.add(batch)
            tables.append(("Fact", facts, True))
        self.facts, self.evidence = {}, {}

        entities_written = 0
        longest = 1
        name_keys_seen: set[str] = set()
        if self._entity_keys is not None:
            keys = self._entity_keys
            entities = CsvTable(self.out, "nodes-Entity",
                                [("id", "ID(Entity)"), *((k, None) for k in keys if k != "id"),
                                 ("alias_text", "string"), ("link_name", "string"), ("link_aliases", "long")])
            at_name, at_aliases = keys.index("name"), keys.index("aliases")
            later_of, names, batch, name_batch = self.entities, self._rels["NAMES"], [], []
            for row in self._entity_spill:
                eid, name, aliases = row[0], row[at_name], row[at_aliases]
                later = later_of[eid]
                cells = list(row)
                if later:
                    aliases = list(aliases)
                    for alias in later:
                        if alias not in aliases and alias != name:
                            aliases.append(alias)
                    cells[at_aliases] = aliases
                # the linking keys GraphLinker.sync writes (cypher/link/write_keys, mark_state)
                cells += [" | ".join(aliases), name or "", len(aliases)]
                batch.append(cells)
                for k in name_keys(name, aliases):
                    name_keys_seen.add(k["key"])
                    name_batch.append((k["key"], eid, k["surface"], k["primary"]))
                    if longest < MAX_SPAN_TOKENS and _most_words(k["surface"]) > longest:
                        longest = max(longest, len(word_spans(k["surface"])))
                if len(batch) >= 5000:
                    entities.add(batch)
                    names.add(name_batch)
                    entities_written += len(batch)
                    batch, name_batch = [], []
            entities.add(batch)
            names.add(name_batch)
            entities_written += len(batch)
            tables.append(("Entity", entities, True))
        self.entities = {}

        name_table = CsvTable(self.out, "nodes-NameKey", [("key", "ID(NameKey)")])
        keys_left = iter(name_keys_seen)
        # in slices: one batch of millions of keys would cost several times their size as text
        while chunk := [(k,) for k in islice(keys_left, 20000)]:
            name_table.add(chunk)
        tables.append(("NameKey", name_table, True))
        del name_keys_seen, keys_left
        link = CsvTable(self.out, "nodes-LinkIndex", [("id", "ID(LinkIndex)"), ("entities", "long"),
                                                      ("max_tokens", "long")])
        link.add([("entity-names", entities_written, min(longest, MAX_SPAN_TOKENS))])
        tables.append(("LinkIndex", link, True))

        if self.relations:
            first = next(iter(self.relations.values()))
            keys = [k for k in first if k != "key"]
            relations = CsvTable(self.out, "nodes-Relation", [("key", "ID(Relation)"), *((k, None) for k in keys)])
            relations.add([(r["key"], *(r.get(k) for k in keys)) for r in self.relations.values()])
            tables.append(("Relation", relations, True))
        if self.sources:
            first = next(iter(self.sources.values()))
            keys = list(first)
            sources = CsvTable(self.out, "nodes-Source", [("id", "ID(Source)"), *((k, None) for k in keys)])
            sources.add([(sid, *(s.get(k) for k in keys)) for sid, s in self.sources.items()])
            tables.append(("Source", sources, True))
        if self._edits is not None:
            tables.append(("Edit", self._edits, True))
        tables.append(("Passage", self._passages, True))
        tables += [(rtype, table, False) for rtype, table in self._rels.items()]

        for name, table, is_node in tables:
            paths = table.close()
            if paths is None:
                continue
            (files.nodes if is_node else files.relationships).append((name, paths))
            files.multiline = files.multiline or table.multiline
        return files

    def discard(self) -> None:
        """Close what is open after a refusal (the directory is removed by the caller)."""
        for table in (self._edits, self._passages, *self._rels.values()):
            if table is not None:
                table.close()
        for spill in (self._entity_spill, self._fact_spill):
            spill._fh.close()


# --------------------------------------------------------------------------- reading edits as a stream


class _Window:
    """The edits EditRows sees: the batch being read, at its place in the file.

    EditRows asks for `edits[start:start + size]`, which is the batch now held; a whole
    pass (the gazetteer EATR builds when a candidate names another edit's entity)
    reads the file again rather than keeping every edit.
    """

    def __init__(self, again: Callable[[], Iterator[EditRecord]]):
        self.offset = 0
        self.edits: list[EditRecord] = []
        self._again = again

    def hold(self, offset: int, edits: list[EditRecord]) -> None:
        self.offset, self.edits = offset, edits

    def __getitem__(self, index: slice) -> list[EditRecord]:
        if not isinstance(index, slice) or index.start != self.offset:
            raise IndexError(f"a file read as a stream holds only the edits from {self.offset} on, not {index}")
        return self.edits[:index.stop - index.start]

    def __iter__(self) -> Iterator[EditRecord]:
        return self._again()


class _FailCheck:
    """The `fail` conflict policy over a stream: pipeline.check_no_conflicts, one batch at a time
    (the store is empty, so only edits of the file can conflict)."""

    def __init__(self):
        self.first: dict[str, tuple] = {}  # slot -> (object id, edit id, where, object)
        self.problems: list[str] = []

    def add(self, edits: list[EditRecord]) -> None:
        for edit in edits:
            slot, object_id = load.edit_slot(edit)
            seen = self.first.setdefault(slot, (object_id, edit.id, edit.source, edit.object))
            if seen[0] != object_id:
                self.problems.append(
                    f"{edit.source}: edit {edit.id!r} sets {edit.subject!r} {edit.relation!r} to {edit.object!r}, "
                    f"but edit {seen[1]!r} ({seen[2]}) sets it to {seen[3]!r}")

    def refuse(self, limit: int = 50) -> None:
        if self.problems:
            shown = "\n".join(f"  {p}" for p in self.problems[:limit])
            more = f"\n  ... and {len(self.problems) - limit} more" if len(self.problems) > limit else ""
            raise InputError(f"{len(self.problems)} conflicting edit(s); nothing was imported and the store is "
                             "unchanged (--conflicts fail; use --conflicts latest to let the later edit win, or "
                             f"keep-all):\n{shown}{more}")


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


def _check_local_and_empty(settings: Settings) -> None:
    local_server(settings)  # refuses NEO4J_URI before anything starts
    with Database.connect(settings) as db:
        check_empty(db, settings)


def _import_and_finish(settings: Settings, fold: StreamFold, work: Path, phases: BulkPhases, *, embedder,
                       phase: Phase | None) -> tuple[int, int, int]:
    """Last files, import, schema, post-processing; returns (conflict pairs, overridden edits, relations embedded)."""
    say = phase or (lambda _name: None)
    t = time.perf_counter()
    say("writing the last import files while Neo4j stops")
    stopping = BackgroundStop(settings)
    try:
        files = fold.finish()
    except BaseException:
        stopping.undo()  # nothing was imported: the store is as it was
        raise
    t = phases.timed("import files (last)", t)
    stopped_in = stopping.wait()
    # the part of the stop the last files did not cover
    t = phases.timed("server stop", t)
    say("running neo4j-admin database import full")
    outcome = import_full(settings, files, work_dir=work, stopped_in=stopped_in)
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
        slots = fold.conflicted_slots()
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


@dataclass
class _Clock:
    """Seconds spent per part of the streamed front half, summed over the batches."""

    read: float = 0.0
    rows: float = 0.0
    files: float = 0.0

    def record(self, phases: BulkPhases) -> None:
        phases.seconds["read"] = round(self.read, 3)
        phases.seconds["extract + EATR + rows"] = round(self.rows, 3)
        phases.seconds["import files (streamed)"] = round(self.files, 3)


def _fold_batch(front: EditRows, fold: StreamFold, start: int, size: int, clock: _Clock) -> None:
    t = time.perf_counter()
    rows = front.batch(start, size)
    t1 = time.perf_counter()
    fold.add(rows)
    clock.rows += t1 - t
    clock.files += time.perf_counter() - t1


def _fold_jsonl(path: Path, front_of: Callable[[ReadResult], EditRows], fold: StreamFold, summary: IngestSummary,
                *, batch_size: int, fail: _FailCheck | None, progress: Progress | None) -> _Clock:
    """Read, extract, refine and write a JSONL file batch by batch; every bad line is listed first."""
    clock = _Clock()
    window = _Window(lambda: (edit for _, edit in iter_jsonl(path)))
    front = front_of(ReadResult(edits=window))  # type: ignore[arg-type]  # a stream, sliced batch by batch
    bad: list[BadRecord] = []
    batch: list[EditRecord] = []
    offset, lineno = 0, 0

    def flush() -> None:
        nonlocal offset, batch
        if fail is not None:
            fail.add(batch)
        # after a bad line or a conflict nothing is imported: the rest is only read, to list them all
        if not bad and not (fail is not None and fail.problems):
            window.hold(offset, batch)
            _fold_batch(front, fold, offset, len(batch), clock)
        offset += len(batch)
        batch = []
        if progress:
            progress(lineno, total)

    t = time.perf_counter()
    total = count_lines(path)
    for lineno, edit in iter_jsonl(path, bad):
        batch.append(edit)
        if len(batch) >= batch_size:
            flush()
    if batch:
        flush()
    clock.read += time.perf_counter() - t - clock.rows - clock.files
    summary.records_read = offset
    _refuse_bad(bad)
    if fail is not None:
        fail.refuse()
    return clock


def _fold_whole(path: Path, format: str | None, front_of: Callable[[ReadResult], EditRows], fold: StreamFold,
                summary: IngestSummary, *, batch_size: int, fail: _FailCheck | None,
                progress: Progress | None) -> _Clock:
    """A file read whole (a MQuAKE JSON document), then extracted, refined and written batch by batch."""
    from kgtool.ingest.readers import read_edits

    clock = _Clock()
    t = time.perf_counter()
    result = read_edits(path, format)
    _refuse_bad(result.bad)
    if fail is not None:
        fail.add(result.edits)
        fail.refuse()
    summary.records_read = total = len(result.edits)
    clock.read = time.perf_counter() - t
    front = front_of(result)
    t = time.perf_counter()
    base = front.base_fact_rows()
    if base is not None:
        fold.add(base)
    clock.files += time.perf_counter() - t
    for start in range(0, total, batch_size):
        _fold_batch(front, fold, start, batch_size, clock)
        if progress:
            progress(min(start + batch_size, total), total)
    return clock


@fewer_collections()  # rows, import files and name keys: millions of small acyclic objects
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
    t0 = time.perf_counter()
    load.check_conflict_policy(conflicts)
    path = Path(path)
    fmt = edit_format(path, format)
    _check_local_and_empty(settings)
    phases = BulkPhases()
    summary = BulkIngestSummary(str(path), batch or path.stem, conflict_policy=conflicts, phases=phases)

    def front_of(result: ReadResult) -> EditRows:  # streaming's front half, batch for batch
        return EditRows(result, path, summary, extractor=extractor, eatr=eatr, delta_rel=settings.delta_rel,
                        embedder=embedder, settings=settings, conflicts=conflicts)

    fail = _FailCheck() if conflicts == "fail" else None
    work = Path(tempfile.mkdtemp(prefix="bulk-", dir=_private_import_dir(settings)))
    try:
        fold = StreamFold(work)
        try:
            if fmt == "jsonl":
                clock = _fold_jsonl(path, front_of, fold, summary, batch_size=batch_size, fail=fail,
                                    progress=progress)
            else:
                clock = _fold_whole(path, fmt, front_of, fold, summary, batch_size=batch_size, fail=fail,
                                    progress=progress)
        except BaseException:
            fold.discard()
            raise
        clock.record(phases)
        summary.conflicts, summary.superseded_by_conflict, summary.relations_embedded = _import_and_finish(
            settings, fold, work, phases, embedder=embedder, phase=phase)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary.seconds = time.perf_counter() - t0
    return summary


@dataclass
class BulkFactsSummary(FactsIngestSummary):
    """What `ingest_facts_bulk` loaded: streaming's summary plus the phases."""

    phases: BulkPhases = field(default_factory=BulkPhases)

    def as_dict(self) -> dict:
        return {**super().as_dict(), "bulk": True, "phases": dict(self.phases.seconds),
                "import_report": self.phases.import_report}


@fewer_collections()
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
    """Bulk-load a fact file (TSV, JSONL, N-Triples) into the empty local store.

    The file is read whole (facts.read_facts); its rows are folded and written batch by batch.
    """
    t0 = t = time.perf_counter()
    phases = BulkPhases()
    path = Path(path)
    _check_local_and_empty(settings)
    result = read_facts(path, format)
    _refuse_bad(result.bad)
    summary = BulkFactsSummary(str(path), result.format, load.source_id(path), records_read=result.records_read,
                               facts_read=len(result.facts), phases=phases)
    t = phases.timed("read", t)
    work = Path(tempfile.mkdtemp(prefix="bulk-", dir=_private_import_dir(settings)))
    try:
        fold = StreamFold(work)
        try:
            total, size = len(result.facts), max(1, batch_size)
            for start, rows in fact_batches(result, path, size):  # streaming's batches
                fold.add(rows)
                if progress:
                    progress(min(start + size, total), total)
        except BaseException:
            fold.discard()
            raise
        result = None  # the facts are in the files now
        summary.facts, summary.entities, summary.relations = len(fold.facts), len(fold.entities), len(fold.relations)
        phases.timed("rows + import files (streamed)", t)
        _pairs, _overridden, summary.relations_embedded = _import_and_finish(settings, fold, work, phases,
                                                                             embedder=embedder, phase=phase)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary.seconds = time.perf_counter() - t0
    return summary
