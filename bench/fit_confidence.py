"""Fit the confidence's weights on stored answers (issues 43 and 44): no question is answered again.

    .venv/bin/python bench/dev_sets.py --out runs.json [--method care,...]   # answers with their evidence
    .venv/bin/python bench/fit_confidence.py runs.json [more.json ...] [--step 0.1] [--out fit.json]

What is fitted: OfflineConfig's `confidence_judge_weight`, `confidence_support_weight`,
`confidence_reading_weight`, `confidence_focus_weight`, `reading_cost` and `lack_factor`
(kgtool.reason.abstain.weigh). `unfinished_factor` is not: no development store has an unfinished ingest.

Objective: the mean AURC (kgtool.eval.abstention.risk_coverage; lower is better) over the groups of the
runs, a group being one set's file answered by one method (one eval report, as a user reads it). The
confidence changes no status (only a caller's `min_confidence` reads it), so each result's stored
`confidence_evidence` (kgtool.reason.abstain.ConfidenceEvidence) and `guess_em` are all a fit needs; a
result without evidence (no answer at all) keeps confidence 0, as the status rule gives it.

Search: every weight vector on a simplex grid (--step), each with every `reading_cost` and `lack_factor` of
a small grid. A point replaces the defaults only when strictly better, so ties keep them.

Check against fitting to noise: the groups are split by set (alternate sets in name order); the fit on one
half is scored on the other, both ways, beside the defaults on that half. Held-out sets (a name with
"heldout" or "handwritten_text") are refused, as bench/fit_offline.py refuses them.
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kgtool.reason.abstain import ConfidenceEvidence, weigh  # noqa: E402
from kgtool.reason.offline_config import OfflineConfig  # noqa: E402

HELD_OUT = ("heldout", "handwritten_text")
WEIGHTS = ("confidence_judge_weight", "confidence_support_weight", "confidence_reading_weight",
           "confidence_focus_weight")
READING_COSTS = (0.25, 0.5, 0.75, 1.0)
LACK_FACTORS = (0.1, 0.3, 0.5, 0.7)


class Group:
    """One set's file answered by one method: its results' evidence, and which guesses are wrong."""

    def __init__(self, name: str, results: list[dict]):
        self.name = name
        self.evidence = [ConfidenceEvidence(**r["confidence_evidence"]) if r.get("confidence_evidence") else None
                         for r in results]
        self.wrong = np.array([not (r.get("answerable") is not False and (r.get("guess_em") or 0) >= 1)
                               for r in results])
        self.stored = np.array([float(r.get("confidence") or 0.0) for r in results])

    def confidence(self, settings: OfflineConfig) -> np.ndarray:
        """The status rule's confidence of each result under `settings` (0 without an answer)."""
        return np.array([weigh(e, settings) if e is not None else 0.0 for e in self.evidence])

    def aurc(self, confidence: np.ndarray) -> float:
        """kgtool.eval.abstention.risk_coverage's area: the mean risk over the prefixes of the order by
        confidence, highest first, a tie sharing its group's risk."""
        order = np.argsort(-confidence, kind="stable")
        level, wrong = confidence[order], self.wrong[order].astype(float)
        n = len(level)
        risk = np.cumsum(wrong) / np.arange(1, n + 1)
        last_of_tie = np.append(level[1:] != level[:-1], True)
        ends = np.where(last_of_tie, np.arange(n), n)
        ends = np.minimum.accumulate(ends[::-1])[::-1]  # each position's tie ends here
        return float(risk[ends].mean())


def load(paths: list[Path]) -> list[Group]:
    groups = []
    for path in paths:
        for set_name, files in json.loads(path.read_text()).items():
            if any(h in set_name for h in HELD_OUT):
                print(f"skipped {set_name}: a held-out set is never fitted on", file=sys.stderr)
                continue
            for file, methods in files.items():
                for method, report in methods.items():
                    results = report.get("results") or []
                    if results and "confidence_evidence" not in results[0]:
                        raise SystemExit(f"{path}: {set_name}/{file}/{method} has no confidence_evidence: "
                                         "answer the sets with a kgtool that stores it (bench/dev_sets.py)")
                    if results:
                        groups.append(Group(f"{set_name}/{file}/{method}", results))
    return groups


def points(step: float):
    k = round(1 / step)
    for parts in itertools.product(range(k + 1), repeat=len(WEIGHTS)):
        if sum(parts) == k:
            yield tuple(p / k for p in parts)


def objective(groups: list[Group], settings: OfflineConfig) -> float:
    return float(np.mean([g.aurc(g.confidence(settings)) for g in groups]))


def fit(groups: list[Group], default: OfflineConfig, step: float) -> tuple[OfflineConfig, float]:
    best, best_value = default, objective(groups, default)
    for weights in points(step):
        for reading_cost in READING_COSTS:
            for lack_factor in LACK_FACTORS:
                point = replace(default, **dict(zip(WEIGHTS, weights)), reading_cost=reading_cost,
                                lack_factor=lack_factor)
                value = objective(groups, point)
                if value < best_value - 1e-12:
                    best, best_value = point, value
    return best, best_value


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=Path, help="bench/dev_sets.py outputs")
    ap.add_argument("--step", type=float, default=0.1, help="the weights' grid step on the simplex")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    groups = load(args.runs)
    if not groups:
        raise SystemExit("no results to fit on")
    default = OfflineConfig()
    off = sum(int((abs(g.confidence(default) - g.stored) > 1e-4).sum()) for g in groups)
    print(f"{len(groups)} groups, {sum(len(g.wrong) for g in groups)} results; "
          f"{off} stored confidences differ from the defaults' recomputation")
    fitted, value = fit(groups, default, args.step)
    before = objective(groups, default)
    chosen = {k: getattr(fitted, k) for k in (*WEIGHTS, "reading_cost", "lack_factor")}
    print(f"mean AURC: defaults {before:.4f} -> fitted {value:.4f}")
    print("fitted: " + ", ".join(f"{k}={v:g}" for k, v in chosen.items()))
    sets = sorted({g.name.split("/")[0] for g in groups})
    halves = [[g for g in groups if sets.index(g.name.split("/")[0]) % 2 == i] for i in (0, 1)]
    split = []
    for i, (train, test) in enumerate((halves, halves[::-1])):
        if not train or not test:
            continue
        point, _ = fit(train, default, args.step)
        split.append({"fitted_on": sorted({g.name.split("/")[0] for g in train}),
                      "scored_on_defaults": objective(test, default), "scored_on_fit": objective(test, point)})
        print(f"split {i}: fitted on half the sets, the other half's mean AURC: defaults "
              f"{split[-1]['scored_on_defaults']:.4f} -> fit {split[-1]['scored_on_fit']:.4f}")
    per_method = {}
    for m in sorted({g.name.rsplit("/", 1)[1] for g in groups}):
        mine = [g for g in groups if g.name.endswith("/" + m)]
        per_method[m] = {"defaults": objective(mine, default), "fitted": objective(mine, fitted)}
        print(f"  {m}: mean AURC {per_method[m]['defaults']:.4f} -> {per_method[m]['fitted']:.4f}")
    if args.out:
        args.out.write_text(json.dumps({"groups": len(groups), "defaults": before, "fitted_value": value,
                                        "fitted": chosen, "split": split, "per_method": per_method}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
