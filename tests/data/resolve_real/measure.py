"""Precision and recall of the merges a default `kgtool ingest facts` makes on the real-data set
(facts.tsv; truth.tsv names the thing each name stands for). Needs a running server (KGTOOL_HOME /
KGTOOL_NEO4J_PORT) and CLEARS its graph. From the repo root:

    python tests/data/resolve_real/measure.py [--resolve evidence] [--json OUT]

Runs the CLI as a user would (`kgtool ingest facts FILE [--resolve R]`), then reads the merges:
a merge is right when both names stand for one thing; recall counts the pairs of names of one thing
(both in the graph) that ended in one entity. Wrong merges are listed with the kind of their pair
(pairs.jsonl), so the non-duplicate kinds (direction word, near-identical names) are counted apart.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter, defaultdict
from itertools import combinations
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--resolve", default=None, help="the --resolve choice (default: the ingest's default)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    from kgtool.api import KnowledgeGraph
    from kgtool.config import Settings

    truth = dict(line.rstrip("\n").split("\t") for line in (HERE / "truth.tsv").open(encoding="utf-8"))
    kinds = {}
    for line in (HERE / "pairs.jsonl").open(encoding="utf-8"):
        row = json.loads(line)
        kinds[frozenset((row["a"]["name"], row["b"]["name"]))] = row["kind"]
    with KnowledgeGraph.connect(Settings.load()) as kg:
        kg.init_schema()
        kg.clear()
        cmd = [str(Path(sys.executable).parent / "kgtool"), "ingest", "facts", str(HERE / "facts.tsv")]
        if args.resolve:
            cmd += ["--resolve", args.resolve]
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if out.returncode:
            raise SystemExit(out.stdout + out.stderr)
        merges = kg.merges(limit=1_000_000)
        names = [r["name"] for r in kg.query("MATCH (e:Entity) RETURN e.name AS name UNION "
                                             "MATCH (e:MergedEntity) RETURN e.name AS name")[1]]
    into: dict[str, str] = {}
    right, wrong = 0, []
    for m in merges:
        a, b = m["survivor_name"], m["absorbed_name"]
        into[b] = a
        if truth.get(a) is not None and truth.get(a) == truth.get(b):
            right += 1
        else:
            wrong.append((a, b, kinds.get(frozenset((a, b)), "other")))

    def root(n: str) -> str:
        while n in into:
            n = into[n]
        return n

    by_thing = defaultdict(list)
    for n in names:
        if n in truth:
            by_thing[truth[n]].append(n)
    pairs = [(a, b) for ns in by_thing.values() for a, b in combinations(sorted(ns), 2)]
    found = sum(1 for a, b in pairs if root(a) == root(b))
    report = {"merges": len(merges), "right": right, "wrong": len(wrong),
              "precision": round(right / len(merges), 4) if merges else 1.0,
              "duplicate_pairs": len(pairs), "found": found,
              "recall": round(found / len(pairs), 4) if pairs else 0.0,
              "wrong_by_kind": dict(Counter(k for *_x, k in wrong)), "wrong_merges": wrong,
              "ingest_seconds": round(seconds, 1), "summary": out.stdout.splitlines()[-40:]}
    print(json.dumps({k: v for k, v in report.items() if k != "summary"}, indent=1, ensure_ascii=False))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
