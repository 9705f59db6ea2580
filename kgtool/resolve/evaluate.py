"""Precision and recall of merges on a labelled pair set, per resolver and threshold.

A pair file is JSON lines `{"a": side, "b": side, "same": bool, "kind": "..."}`, a
side being what resolution sees of an entity: `{id, name, aliases?, qid?, kind?,
facts?: [[relation, object name], ...]}` (kgtool.resolve.base.EntityView.from_mapping).
Each pair is planned alone, exactly as the store's entities are (the id resolver,
then the named one, the guards and the survivor rule of kgtool.resolve.plan), and
counts as merged when the plan merges its two sides.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from kgtool.errors import InputError
from kgtool.resolve.base import EntityView
from kgtool.resolve.plan import propose
from kgtool.resolve.resolvers import RESOLVERS, build


@dataclass
class PairScore:
    resolver: str
    min_score: float
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    false_merges: list[str] = field(default_factory=list)
    missed: dict[str, int] = field(default_factory=dict)  # kind -> positives not merged

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict:
        return {"resolver": self.resolver, "min_score": self.min_score, "tp": self.tp, "fp": self.fp,
                "fn": self.fn, "tn": self.tn, "precision": round(self.precision, 4),
                "recall": round(self.recall, 4), "f1": round(self.f1, 4),
                "false_merges": self.false_merges, "missed_by_kind": self.missed}


def read_pairs(path: str | Path) -> list[tuple[EntityView, EntityView, bool, str]]:
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such pair file")
    out = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            a, b = EntityView.from_mapping(row["a"]), EntityView.from_mapping(row["b"])
            same = row["same"]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise InputError(f"{path}:{lineno}: not a labelled pair ({exc}); expected "
                             '{"a": {"id", "name", ...}, "b": {...}, "same": true|false}') from None
        if not isinstance(same, bool):
            raise InputError(f"{path}:{lineno}: 'same' must be true or false, got {same!r}")
        out.append((a, b, same, str(row.get("kind", ""))))
    return out


def evaluate(pairs, resolver: str, min_score: float | None = None, **settings) -> PairScore:
    resolvers = build(resolver, min_score=min_score, **settings)
    score = PairScore(resolver, resolvers[-1].min_score if resolvers else 1.0)
    for r in resolvers:
        prepare = getattr(r, "prepare", None)
        if prepare is not None:  # one model call for every name, not one per pair
            prepare([v for a, b, _same, _kind in pairs for v in (a, b)])
    for a, b, same, kind in pairs:
        merged = bool(resolvers) and any({m.a, m.b} == {a.id, b.id} for m in propose([a, b], resolvers).merges)
        if merged and same:
            score.tp += 1
        elif merged:
            score.fp += 1
            score.false_merges.append(f"{a.name} = {b.name} ({kind})")
        elif same:
            score.fn += 1
            score.missed[kind] = score.missed.get(kind, 0) + 1
        else:
            score.tn += 1
    return score


def sweep(pairs, resolvers=("id", "exact", "fuzzy", "embedding", "evidence"),
          thresholds=(0.8, 0.85, 0.9, 0.95, 1.0), **settings) -> list[PairScore]:
    """Every resolver at its default threshold, and the graded ones (fuzzy, embedding) at each threshold."""
    out = []
    if "embedding" in resolvers and "embedder" not in settings:
        from kgtool.models.embed import get_embedder

        settings = {**settings, "embedder": get_embedder("minilm")}  # loaded once for every threshold
    for name in resolvers:
        if name not in RESOLVERS:
            raise InputError(f"unknown resolver {name!r}; registered: {', '.join(RESOLVERS.names())}")
        out.append(evaluate(pairs, name, **(settings if name == "embedding" else {})))
        default = out[-1].min_score
        if name in ("fuzzy", "embedding"):
            for t in thresholds:
                if abs(t - default) > 1e-9:
                    out.append(evaluate(pairs, name, t, **(settings if name == "embedding" else {})))
    return out


def best_default(scores: list[PairScore], min_precision: float = 0.98) -> PairScore | None:
    """The resolver setting with the best F1 among those with precision >= min_precision."""
    ok = [s for s in scores if s.precision >= min_precision]
    return max(ok, key=lambda s: (s.f1, s.precision)) if ok else None
