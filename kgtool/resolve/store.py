"""Entity resolution on the graph: plan, merge with a record, undo, list and explain.

`resolve(db, "exact")` reads every entity's view (cypher/resolve/entities), plans the
merges (kgtool.resolve.plan) and, unless dry_run, applies them in ONE transaction:
each merge (cypher/resolve/merge) moves the absorbed entity's facts, mentions and
edits to the survivor and leaves an (:EntityMerge) record and a tombstone; then the
conflict verdicts of the edit slots the merges joined are recomputed (the policy of
kgtool.ingest.load) and a file's base facts that now disagree with an edit of their
slot follow that edit's policy (cypher/resolve/source_conflicts). `undo(db, id)`
moves back exactly what a merge's record lists and recomputes the same verdicts, so
the graph's counts are those from before the merge.

Merge ids are derived from (survivor, absorbed), so planning the same merge twice
names it the same.
"""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Iterable

from kgtool.errors import InputError
from kgtool.graph.db import Database
from kgtool.ingest.graph_linker import GraphLinker
from kgtool.resolve.base import Candidate, EntityView
from kgtool.resolve.plan import propose
from kgtool.resolve.resolvers import CHOICES, build


@dataclass
class ResolveReport:
    resolver: str
    dry_run: bool
    pass_id: str = ""
    entities: int = 0
    merges: list[dict] = field(default_factory=list)  # {merge_id, survivor, absorbed, names, score, resolver, reason}
    near_misses: list[dict] = field(default_factory=list)
    suggestions: list[dict] = field(default_factory=list)  # near misses nothing forbids, with their ids
    source_conflicts: list[dict] = field(default_factory=list)
    edit_changes: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"resolver": self.resolver, "dry_run": self.dry_run, "pass_id": self.pass_id,
                "entities": self.entities, "merges": self.merges, "near_misses": self.near_misses,
                "suggestions": self.suggestions,
                "source_conflicts": self.source_conflicts, "edit_changes": self.edit_changes}


class MergeRaced(InputError):
    """A planned merge met an entity another process merged or deleted since it was read."""


def merge_id(survivor_id: str, absorbed_id: str) -> str:
    return "merge:" + hashlib.sha1(f"{survivor_id}\x1f{absorbed_id}".encode("utf-8")).hexdigest()[:16]


def suggestion_id(a: str, b: str) -> str:
    """The same for the pair whichever way round, so re-suggesting it names it the same."""
    x, y = sorted((a, b))
    return "suggest:" + hashlib.sha1(f"{x}\x1f{y}".encode("utf-8")).hexdigest()[:12]


def new_pass_id(kind: str = "resolve") -> str:
    """A resolver pass's id: what `kgtool resolve list --ingest ID` and `--undo --ingest ID` name."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    return f"{kind}-{stamp}-{secrets.token_hex(2)}"


def rejected_pairs(db: Database) -> list[tuple[str, str]]:
    return [(r["a_id"], r["b_id"]) for r in db.read("resolve/rejections")]


def load_views(db: Database, ids: Iterable[str] | None = None) -> list[EntityView]:
    rows = db.read("resolve/entities", ids=None if ids is None else list(ids))
    return [EntityView.from_mapping(row) for row in rows]


def resolve(db: Database, resolver: str = "exact", *, min_score: float | None = None, dry_run: bool = False,
            focus: Iterable[str] | str | None = None, record_near_misses: bool = False, registry=None,
            pass_id: str | None = None, source: str | None = None, **settings) -> ResolveReport:
    """Find and (unless dry_run) apply merges.

    focus: None compares every entity with every other; a list of ids only pairs with one of
    them; "unchecked" the entities no pass has compared yet (what ingests wrote since), which
    are then marked checked. Pairs a person kept apart (an undone merge) are never merged.
    The merges carry `pass_id` (a new one by default) and `source` (the file an ingest ran the
    pass after); the near misses nothing forbids are recorded as suggestions."""
    if resolver not in CHOICES:
        raise InputError(f"unknown resolver {resolver!r}; use one of: {', '.join(CHOICES)}")
    report = ResolveReport(resolver, dry_run, pass_id or new_pass_id())
    resolvers = build(resolver, registry, min_score=min_score, **settings) if resolver != "none" else []
    if not resolvers:
        return report
    unchecked = focus == "unchecked"
    if unchecked:
        focus = [r["id"] for r in db.read("resolve/unchecked_entities")]
    focus_set = None if focus is None else set(focus)
    if focus_set is not None and not focus_set:
        return report
    for attempt in (1, 2):
        views = load_views(db)
        report.entities = len(views)
        proposal = propose(views, resolvers, focus=focus_set, rejected=rejected_pairs(db))
        by_id = {v.id: v for v in views}
        report.merges = [_describe(c, by_id, merge_id(c.a, c.b)) for c in proposal.merges]
        below = sorted(proposal.below, key=lambda c: (-c.score, c.pair()))
        report.near_misses = [_describe(c, by_id, None) for c in below]
        # suggestions come from a decision on evidence; a name resolver's near misses are only reported
        # (and recorded with record_near_misses)
        suggests = any(getattr(r, "suggests", False) for r in resolvers)
        open_ = [c for c in below if not c.refused and suggests]
        report.suggestions = [{"id": suggestion_id(c.a, c.b), **_describe(c, by_id, None)} for c in open_]
        if dry_run:
            return report
        try:
            if proposal.merges:
                report.source_conflicts, report.edit_changes = apply_merges(db, proposal.merges, report.pass_id,
                                                                            source)
            break
        except MergeRaced as raced:
            # another process merged or deleted an entity after this pass read it (a concurrent ingest's
            # resolve): nothing of this pass was written; propose again on the graph as it is now, once
            if attempt == 2:
                raise InputError(f"{raced}; none of this pass's {len(proposal.merges)} merge(s) was written "
                                 "(what the ingest itself wrote is all in)") from None
    if open_:
        db.write("resolve/record_suggestions", pass_id=report.pass_id, rows=[
            {"id": suggestion_id(c.a, c.b), "a": c.a, "b": c.b, "resolver": c.resolver, "score": float(c.score),
             "reason": c.reason} for c in open_])
    if unchecked:
        db.write("resolve/mark_checked", ids=sorted(focus_set))
    if record_near_misses and proposal.below:
        db.write("resolve/record_near_misses", rows=[
            {"a": c.a, "b": c.b, "resolver": c.resolver, "score": float(c.score), "reason": c.reason}
            for c in proposal.below if c.a in by_id and c.b in by_id])
    return report


def _describe(c: Candidate, by_id: dict[str, EntityView], mid: str | None) -> dict:
    out = {"survivor_id": c.a, "survivor": by_id[c.a].name, "absorbed_id": c.b, "absorbed": by_id[c.b].name,
           "score": round(float(c.score), 4), "resolver": c.resolver, "reason": c.reason}
    if mid is not None:
        out = {"merge_id": mid, **out}
    return out


def apply_merges(db: Database, merges: list[Candidate], pass_id: str | None = None,
                 source: str | None = None) -> tuple[list[dict], list[dict]]:
    """Apply planned merges (survivor a, absorbed b) in one transaction; returns
    (source conflicts decided, edit verdicts changed)."""
    pass_id = pass_id or new_pass_id()

    def work(run):
        rows = run("resolve/merge", {"pass_id": pass_id, "source": source, "rows": [
            {"merge_id": merge_id(c.a, c.b), "survivor_id": c.a, "absorbed_id": c.b, "resolver": c.resolver,
             "score": float(c.score), "reason": c.reason} for c in merges]})
        if len(rows) < len(merges):
            done = {r["absorbed_id"] for r in rows}
            c = next(c for c in merges if c.b not in done)
            raise MergeRaced(f"cannot merge {c.b!r} into {c.a!r}: one of them is no longer an entity "
                             "(another process merged or deleted it); run `kgtool resolve` again")
        slots = {s for r in rows for s in r["slots"] if s}
        survivors = {c.a for c in merges}
        edit_changes = _settle_slots(run, sorted(slots))
        conflicts = run("resolve/source_conflicts", {"entity_ids": sorted(survivors)})
        return conflicts, edit_changes

    result = db.write_transaction(work)
    GraphLinker.forget(db)  # the survivors' aliases changed: answering re-keys them
    return result


def _settle_slots(run, slots: list[str]) -> list[dict]:
    """Conflict verdicts of edit slots a merge or an undo changed, by the edits' own policy."""
    if not slots:
        return []
    run("ingest/flag_conflicts", {"slots": slots})
    changes = run("ingest/resolve_conflicts", {"slots": slots})
    run("ingest/update_fact_status", {"fact_ids": [], "slots": slots})
    return changes


def undo(db: Database, merge_id_: str) -> dict:
    """Undo one merge (see the module docstring) and remember the pair as kept apart (a rejection no
    later pass overrides); refuses, naming what to undo first, when it cannot."""
    check = db.read("resolve/undo_check", merge_id=merge_id_)[0]
    if not check["found"]:
        raise InputError(f"no merge {merge_id_!r}; `kgtool resolve list` shows the merges in the graph")
    if check["survivor_merged_by"]:
        raise InputError(f"merge {merge_id_!r} merged into {check['survivor_id']!r}, which a later merge "
                         f"{check['survivor_merged_by']!r} absorbed; undo that one first")
    if not check["tombstone"]:
        raise InputError(f"merge {merge_id_!r} has lost the entity it absorbed ({check['absorbed_id']!r}); "
                         "it cannot be undone")

    def work(run):
        rows = run("resolve/undo", {"merge_id": merge_id_})
        if not rows:
            raise InputError(f"merge {merge_id_!r} could not be undone: its survivor "
                             f"{check['survivor_id']!r} is gone")
        slots = sorted({s for s in rows[0]["slots"] if s})
        stale = [r["fact_id"] for r in run("resolve/drop_stale_links", {"slots": slots})]
        changes = _settle_slots(run, slots)
        if stale:
            run("ingest/update_fact_status", {"fact_ids": stale, "slots": []})
        a, b = sorted((check["survivor_id"], check["absorbed_id"]))
        names = {check["survivor_id"]: check["survivor_name"], check["absorbed_id"]: check["absorbed_name"]}
        run("resolve/reject", {"rows": [{"a_id": a, "b_id": b, "a_name": names[a], "b_name": names[b],
                                         "merge_id": merge_id_}]})
        return {**rows[0], "edit_changes": changes, "facts_rechecked": len(stale)}

    result = db.write_transaction(work)
    GraphLinker.forget(db)
    return result


def list_merges(db: Database, resolver: str | None = None, limit: int = 1000, ingest: str | None = None) -> list[dict]:
    """The merges, newest first; `ingest`: only those of one pass (its id, or the file an ingest ran it after)."""
    if ingest and not ingest.startswith(("ingest-", "resolve-", "accept-")):
        from kgtool.ingest.load import source_id

        ingest = source_id(ingest)  # a file as the ingest stored it (its resolved path)
    return db.read("resolve/list", resolver=resolver, limit=int(limit), **{"pass": ingest})


def explain(db: Database, merge_id_: str) -> dict:
    rows = db.read("resolve/explain", merge_id=merge_id_)
    if not rows:
        raise InputError(f"no merge {merge_id_!r}; `kgtool resolve list` shows the merges in the graph")
    return rows[0]


def redirects(db: Database, ids: Iterable[str]) -> dict[str, str]:
    """Merged ids -> the entity they were merged into (for ingesting after merges)."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        return {}
    return {r["id"]: r["survivor_id"] for r in db.read("resolve/redirects", ids=ids)}
