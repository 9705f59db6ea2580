"""The fold of a bulk load: graph rows, batch by batch, into the offline importer's files.

`StreamFold` applies the semantics of streaming ingest's MERGE statements
(cypher/ingest/) to the `GraphRows` of each batch: first write creates,
aliases and phrasings accumulate, an edit fact stays an edit fact, the first
ingestion stamp stays. Edits, passages and relationships are written at once;
a fact's or an entity's first row goes to a spill file, since a later batch
can still change it, and the spill files become the Fact and Entity files at
the end (kgtool/ingest/bulk.py runs the load around it).
"""
from __future__ import annotations

import marshal
import re
from collections.abc import Iterator
from datetime import datetime, timezone
from itertools import islice
from operator import itemgetter
from pathlib import Path

from kgtool.errors import InputError
from kgtool.graph.bulk_import import CsvTable, ImportFiles, check_list_items
from kgtool.ingest import load
from kgtool.ingest.graph_linker import KEYS_VERSION, MAX_SPAN_TOKENS, name_keys, word_spans


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

    def __init__(self, out: Path, marker: dict | None = None):
        self.out = out
        # the (:Ingest) marker, imported as started: the post-processing after the import finishes it
        self.marker = marker
        # typed values (GraphRows.literals): their nodes are imported as entities, then typed
        # after the import by ingest/merge_literals, as streaming types them
        self.literals: list[dict] = []
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
        self.literals.extend(rows.literals.values())

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
                                                      ("max_tokens", "long"), ("keys_version", "long")])
        # name_keys wrote today's keys (folded ones too): the first sync must not re-key them
        link.add([("entity-names", entities_written, min(longest, MAX_SPAN_TOKENS), KEYS_VERSION)])
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
        if self.marker is not None:
            ingest = CsvTable(self.out, "nodes-Ingest", [("id", "ID(Ingest)"), ("kind", "string"),
                                                         ("source", "string"), ("started_at", "datetime")])
            ingest.add([(self.marker["id"], self.marker["kind"], self.marker["source"],
                         datetime.now(timezone.utc).isoformat())])
            tables.append(("Ingest", ingest, True))
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
