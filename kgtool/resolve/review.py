"""What a person decides about resolution: open suggestions, accepting them, undoing merges in bulk.

- `suggestions(db)`: the near misses a pass recorded (resolve/record_suggestions) that are still
  open: both entities still there, the pair not rejected;
- `accept(db, ids)`: merge suggested pairs, recorded like any merge (resolver "accepted",
  undoable), taking back a rejection of the pair;
- `undo_many(db, ids=..., ingest=..., everything=...)`: undo several merges, newest first (a later
  merge that absorbed an earlier one's survivor goes first); each undone pair is remembered as a
  rejection (kgtool.resolve.store.undo).
"""
from __future__ import annotations

from typing import Iterable

from kgtool.errors import InputError
from kgtool.graph.db import Database
from kgtool.resolve.base import Candidate, survivor_rank
from kgtool.resolve.store import apply_merges, list_merges, load_views, new_pass_id, redirects, undo

ALL = 1_000_000


def suggestions(db: Database, ids: Iterable[str] | None = None, limit: int = 1000) -> list[dict]:
    return db.read("resolve/suggestions", ids=None if ids is None else list(ids), limit=int(limit))


def accept(db: Database, ids: Iterable[str]) -> dict:
    """Merge the suggested pairs `ids` (one pass id for all); returns {pass_id, merges, source_conflicts}."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        raise InputError("name the suggestions to accept: `kgtool resolve list --suggestions` shows their ids")
    found = {row["id"]: row for row in suggestions(db, ids, limit=len(ids))}
    missing = [i for i in ids if i not in found]
    if missing:
        raise InputError(f"no open suggestion {', '.join(map(repr, missing))}; `kgtool resolve list --suggestions` "
                         "shows the open ones (a merge or an undo may have closed it)")
    pass_id = new_pass_id("accept")
    merges, conflicts = [], []
    for sid in ids:
        row = found[sid]
        # an earlier accept of this call may have merged one side already: merge into where it went
        moved = redirects(db, [row["a_id"], row["b_id"]])
        a, b = moved.get(row["a_id"], row["a_id"]), moved.get(row["b_id"], row["b_id"])
        if a == b:
            continue
        views = {v.id: v for v in load_views(db, [a, b])}
        keep, drop = sorted((a, b), key=lambda x: survivor_rank(views[x]))
        db.write("resolve/unreject", pairs=[sorted((row["a_id"], row["b_id"])), sorted((a, b))])
        cand = Candidate(keep, drop, float(row["score"]), "accepted", f"accepted suggestion {sid}: {row['reason']}")
        settled, _changes = apply_merges(db, [cand], pass_id)
        conflicts.extend(settled)
        merges.append({"suggestion": sid, "survivor_id": keep, "absorbed_id": drop,
                       "survivor": views[keep].name, "absorbed": views[drop].name})
    return {"pass_id": pass_id, "merges": merges, "source_conflicts": conflicts}


def undo_many(db: Database, ids: Iterable[str] = (), *, ingest: str | None = None, everything: bool = False) -> list[dict]:
    """Undo the merges named by id, all merges of one pass (`ingest`: its id or the file an ingest ran it
    after), or every merge; newest first. Returns what each undo returned."""
    ids = [i for i in dict.fromkeys(ids) if i]
    if not (ids or ingest or everything):
        raise InputError("name what to undo: merge ids, --ingest ID (a pass or a file) or --all")
    rows = list_merges(db, limit=ALL, ingest=None if everything else ingest)
    if ids:
        known = {r["merge_id"] for r in rows}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise InputError(f"no merge {', '.join(map(repr, unknown))}; `kgtool resolve list` shows the merges in "
                             "the graph")
        rows = [r for r in rows if r["merge_id"] in set(ids)]
    elif ingest and not everything and not rows:
        raise InputError(f"no merges of {ingest!r}; `kgtool resolve list` shows each merge's pass")
    # list order is newest first: a merge that absorbed an earlier merge's survivor is undone before it
    return [undo(db, r["merge_id"]) for r in rows]
