"""Fit a handful of OfflineConfig values on the own development sets (issue 44).

    .venv/bin/python bench/fit_offline.py [--sets status,roles] [--knob planner_hop_cost=0.25,0.35,0.45 ...]
                                          [--method care] [--port 7720] [--out fit.json]

Objective (--objective), compared in this order, each key only on a tie of the ones before it:
- answer (planning and matching knobs): answered precision (of the questions a method answers, the
  share answered right; an unanswerable question answered counts as wrong), then Acc on the
  answerable questions;
- status (the status rule's bars, which change no answer, only its status): answered precision, then
  SQuAD 2.0's no-answer F1 over the unanswerable questions (`no_answer` as the prediction
  "unanswerable"), then the share of right answers that are `answered`.
A value replaces the default only when it is strictly better on that key; ties keep the default, so a
knob the sets do not move stays where it was set.

Search: coordinate-wise over a small grid, one knob at a time, each from the values fitted before it.
Each set is ingested once into a store of its own (bench/dev_sets.py's sets and layout); every grid
point is one `kgtool eval` of that store in a fresh process with KGTOOL_OFFLINE_CONFIG set, which is
how kgtool.reason.offline_config reads a value once per process. The knobs not yet fitted run together
in one server start per store; when one moves, those after it run again from its new value, so the
result is that of trying them one after another.

Only development sets are fitted on: a held-out set (paraphrase_heldout, the handwritten_text sets) is
refused, so no value can come from a set that is then reported as held out.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HELD_OUT = ("heldout", "handwritten_text")
# the most influential knobs of planning and matching: a hop's cost in the two searches, the selector's
# margin and the reading check's margin (bench/fit_offline.py's defaults, each around its hand-set value)
GRID = {
    "planner_hop_cost": [0.25, 0.35, 0.45],
    "structured_hop_cost": [0.2, 0.3, 0.4],
    "selector_margin": [0.1, 0.15, 0.2],
    "explains_margin": [0.05, 0.1, 0.15],
}
# the status rule's bars between a lack and a doubt, each around its hand-set value (--objective status)
STATUS_GRID = {
    "near_hop": [0.3, 0.4, 0.5],
    "expresses_nothing": [0.4, 0.5, 0.6],
    "names_outright": [0.9, 0.95, 0.99],
    "detour_share": [0.05, 0.1, 0.3],
}


def _dev_sets():
    spec = importlib.util.spec_from_file_location("dev_sets", ROOT / "bench" / "dev_sets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def score(summaries: list[dict], objective: str = "answer") -> tuple[float, ...]:
    """The objective's keys (the module docstring) over the questions of every summary (dev_sets.py's
    per-method entries)."""
    results = [r for summary in summaries for r in summary["results"]]
    answerable = [r for r in results if r.get("answerable") is not False]
    unanswerable = [r for r in results if r.get("answerable") is False]
    answered = [r for r in results if r.get("status") == "answered"]
    # an answer to an unanswerable question is wrong
    precision = _share(sum(bool(r.get("em")) and r.get("answerable") is not False for r in answered), len(answered))
    if objective == "answer":
        return precision, _share(sum(bool(r.get("em")) for r in answerable), len(answerable))
    abstained = [r for r in results if r.get("status") == "no_answer"]
    na_precision = _share(sum(r.get("answerable") is False for r in abstained), len(abstained))
    na_recall = _share(sum(r.get("status") == "no_answer" for r in unanswerable), len(unanswerable))
    f1 = 2 * na_precision * na_recall / (na_precision + na_recall) if na_precision + na_recall else 0.0
    right = [r for r in answerable if r.get("em")]
    return precision, f1, _share(sum(r.get("status") == "answered" for r in right), len(right))


def _share(num: int, den: int) -> float:
    return num / den if den else 0.0


class Stores:
    """One ingested store per set, kept running while the grid is tried on it."""

    def __init__(self, names: list[str], code: Path, port: int, log):
        self.dev = _dev_sets()
        self.code, self.log = code, log
        self.stores = []
        for i, name in enumerate(names):
            kind, source, evals = self.dev.SETS[name]
            home = Path(tempfile.mkdtemp(prefix=f"fit-{name}-"))
            env = {**os.environ, "PYTHONPATH": str(code), "KGTOOL_HOME": str(home),
                   "KGTOOL_NEO4J_PORT": str(port + 2 * i), "KGTOOL_NEO4J_HTTP_PORT": str(port + 2 * i + 1),
                   "HF_HUB_OFFLINE": "1"}
            env.pop("KGTOOL_LLM_BASE_URL", None)
            env.pop("KGTOOL_OFFLINE_CONFIG", None)
            self.stores.append((name, home, env, evals))

    def _cli(self) -> list[str]:
        return [sys.executable, "-m", "kgtool.cli"]

    def run(self, points: list[dict], method: str) -> list[list[dict]]:
        """Every set's per-method summaries for each point (values over the defaults). The stores start one
        at a time (one server running at once), each once for all the points, and are ingested on their
        first use: a server start costs about as much as one set's evaluation."""
        out: list[list[dict]] = [[] for _ in points]
        for name, home, env, evals in self.stores:
            kind, source, _ = self.dev.SETS[name]
            self.dev._run(self._cli() + ["db", "start"], env, self.log)
            try:
                if not (home / ".ingested").exists():
                    self.dev._run(self._cli() + ["ingest", kind, str(source)], env, self.log)
                    (home / ".ingested").touch()
                for summaries, values in zip(out, points):
                    run_env = {**env, "KGTOOL_OFFLINE_CONFIG": json.dumps(values)}
                    for how, path in evals:
                        report = home / f"{path.stem}.json"
                        self.dev._run(self._cli() + ["eval", how, str(path), "--method", method, "--agents",
                                                     "offline", "--workers", "1", "--json", str(report)],
                                      run_env, self.log)
                        summaries.extend(self.dev._summary(json.loads(report.read_text())).values())
            finally:
                subprocess.run(self._cli() + ["db", "stop"], env=env, capture_output=True)
        return out

    def close(self) -> None:
        for _, home, env, _ in self.stores:
            subprocess.run(self._cli() + ["db", "stop"], env=env, capture_output=True)
            shutil.rmtree(home, ignore_errors=True)


KEYS = {"answer": ("answered precision", "Acc"),
        "status": ("answered precision", "no-answer F1", "right answers answered")}


def _keys(objective: str, values) -> str:
    return ", ".join(f"{name} {value:.3f}" for name, value in zip(KEYS[objective], values))


def fit(stores: Stores, grid: dict[str, list[float]], method: str, log, objective: str = "answer") -> dict:
    from kgtool.reason.offline_config import OfflineConfig

    defaults = OfflineConfig()
    fitted: dict[str, float] = {}
    knobs: dict[str, dict] = {}
    base = best = None
    pending = list(grid.items())
    while pending:
        # every pending knob's values from the values fitted so far, in one server start per store; a knob
        # that moves makes the ones after it run again from the new values (most knobs keep their value, so
        # the search is the one-knob-at-a-time one at about one start per store in all)
        tries = [(knob, [v for v in values if v != getattr(defaults, knob)]) for knob, values in pending]
        points = ([{}] if base is None else []) + [{**fitted, knob: v} for knob, values in tries for v in values]
        results = iter(stores.run(points, method))
        if base is None:
            base = best = score(next(results), objective)
            log(f"defaults: {_keys(objective, base)}")
        moved_at = len(tries)
        for i, (knob, values) in enumerate(tries):
            default = getattr(defaults, knob)
            rows = {default: best}
            for value in values:
                rows[value] = score(next(results), objective)
                log(f"  {knob} = {value}: {_keys(objective, rows[value])}")
            winner = max(rows, key=lambda v: (rows[v], v == default))  # a tie keeps the hand-set value
            moved = winner != default and rows[winner] > best
            knobs[knob] = {"default": default, "fitted": winner if moved else default,
                           "scores": {str(v): s for v, s in rows.items()}}
            if moved:
                fitted[knob], best = winner, rows[winner]
                moved_at = i
                break
        pending = pending[moved_at + 1:]
    return {"method": method, "objective": objective, "fitted": fitted, "before": base, "after": best,
            "defaults": base, "knobs": knobs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="status,roles,handwritten2",
                        help="development sets of bench/dev_sets.py (never a held-out one)")
    parser.add_argument("--knob", action="append", default=[], metavar="NAME=V1,V2,...",
                        help=f"a knob and its grid (default: {', '.join(GRID)}; with --objective status: "
                             f"{', '.join(STATUS_GRID)})")
    parser.add_argument("--objective", choices=sorted(KEYS), default="answer",
                        help="what the fit maximises (the module docstring)")
    parser.add_argument("--method", default="care")
    parser.add_argument("--code", type=Path, default=ROOT)
    parser.add_argument("--port", type=int, default=7720)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    names = [s for s in args.sets.split(",") if s]
    held = [s for s in names if any(h in s for h in HELD_OUT)]
    if held:
        parser.error(f"{', '.join(held)} is held out: fitting on it would make its report meaningless")
    dev = _dev_sets()
    unknown = [s for s in names if s not in dev.SETS]
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}; known: {', '.join(dev.SETS)}")
    grid = dict(STATUS_GRID if args.objective == "status" else GRID)
    if args.knob:
        grid = {}
        for spec in args.knob:
            name, _, values = spec.partition("=")
            grid[name] = [float(v) for v in values.split(",")]
    sys.path.insert(0, str(args.code.resolve()))  # the names and defaults are those of the code fitted
    from kgtool.reason.offline_config import OfflineConfig

    OfflineConfig.build("offline", {k: v[0] for k, v in grid.items()}, kind="settings")  # names checked early

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)
    stores = Stores(names, args.code.resolve(), args.port, log)
    try:
        result = fit(stores, grid, args.method, log, args.objective)
    finally:
        stores.close()
    result["sets"] = names
    print(f"sets {', '.join(names)}; method {args.method}; objective: {', then '.join(KEYS[args.objective])}")
    for knob, row in result["knobs"].items():
        scores = "; ".join(f"{v}: {'/'.join(f'{k:.3f}' for k in keys)}" for v, keys in row["scores"].items())
        print(f"  {knob}: default {row['default']} -> fitted {row['fitted']}   ({scores})")
    print(f"before: {_keys(args.objective, result['before'])}")
    print(f"after:  {_keys(args.objective, result['after'])}")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
