"""MQuAKE in a store that also holds text corpora: accuracy, status precision and the failures, per method.

A document corpus in the same store as edited facts adds entities that share
names with the edits' entities and relations read from passages that compete
with the stated ones (issue 24). This script builds such a store ONCE in a
home you name (ingesting takes minutes: MuSiQue and HotpotQA together ~10 min
on two cores) and evaluates it as often as you like; a marker file in the home
records what was ingested, so a second run only answers.

    KGTOOL_HOME=mixed-home KGTOOL_NEO4J_PORT=7720 .venv/bin/python bench/mixed_store.py \
        [--corpus musique,hotpotqa | --corpus none] [--method care,c2rag,...] [--workers 2] [--limit N] \
        [--json out.json] [--keep-running]

--corpus none builds the MQuAKE file's own store (the baseline the mixed
store is compared with). The store's server is started if it is not running
and stopped at the end unless --keep-running (it never touches another home).
Output: one row per method (case Acc, answered share, status precision,
statuses), then every wrong case with its questions' predictions and statuses,
and every `answered` question that is wrong.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kgtool.api import KnowledgeGraph  # noqa: E402
from kgtool.config import Settings  # noqa: E402
from kgtool.graph.server import LocalServer  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
CORPORA = {
    "musique": SHARED / "text-qa" / "musique-corpus.json",
    "hotpotqa": SHARED / "text-qa" / "hotpotqa-corpus.json",
}
MARKER = "mixed_store.json"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def build(kg: KnowledgeGraph, home: Path, mquake: Path, corpora: list[str]) -> None:
    """Ingest what the marker does not list yet (edits first, as a user adding documents to an edited store)."""
    marker = home / MARKER
    done = json.loads(marker.read_text()) if marker.exists() else []
    # recorded by file name, so a checkout elsewhere (another worktree) reuses the store
    todo = [("edits", mquake)] + [("docs:" + c, CORPORA[c]) for c in corpora]
    for kind, path in todo:
        if [kind, path.name] in done:
            continue
        started = time.perf_counter()
        log(f"ingesting {kind} {path}")
        if kind == "edits":
            kg.ingest_edits(path)
        else:
            kg.ingest_docs(path, format=kind.split(":", 1)[1])
        log(f"  {time.perf_counter() - started:.0f} s")
        done.append([kind, path.name])
        marker.write_text(json.dumps(done))


def report(data: dict) -> None:
    print(f"{'method':8} {'Acc':>6} {'answered':>9} {'share':>6} {'precision':>9}  statuses")
    for name, s in data["methods"].items():
        questions = s["questions"] or 1
        precision = "-" if s["status_precision"] is None else f"{s['status_precision']:.3f}"
        print(f"{name:8} {s['acc']:6.3f} {s['answered']:9d} {s['answered'] / questions:6.3f} {precision:>9}  "
              f"{s['status']}")
    for name, s in data["methods"].items():
        by_id = {r["id"]: r for r in s["results"]}
        wrong = [c for c in s.get("case_results", []) if not c["correct"]]
        print(f"\n{name}: {len(wrong)} wrong case(s)")
        for c in wrong:
            print(f"  case {c['case_id']} ({c['hops']} hops)")
            for q in c["question_ids"]:
                r = by_id.get(q)
                if r:
                    print(f"    [{r['status']}] {r['question']!r} -> {r['prediction']!r} (gold {r['gold'][:2]})")
        bad = [r for r in s["results"] if r["status"] == "answered" and not r["em"]]
        print(f"{name}: {len(bad)} wrong answer(s) marked answered")
        for r in bad:
            print(f"    {r['question']!r} -> {r['prediction']!r} (gold {r['gold'][:2]}) run {r['run_id']}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--file", type=Path, default=SHARED / "mquake-hard-dev.json")
    ap.add_argument("--corpus", default="musique,hotpotqa", help="corpora to add, comma-separated, or none")
    ap.add_argument("--method", default="care,c2rag,reagent,safe,vog")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--keep-running", action="store_true")
    args = ap.parse_args()
    corpora = [] if args.corpus.strip() == "none" else [c.strip() for c in args.corpus.split(",") if c.strip()]
    unknown = set(corpora) - set(CORPORA)
    if unknown:
        ap.error(f"unknown corpus {sorted(unknown)}; use {sorted(CORPORA)} or none")
    if "KGTOOL_HOME" not in os.environ:
        ap.error("set KGTOOL_HOME (and KGTOOL_NEO4J_PORT) to the home the store is built in")
    settings = Settings.load()
    server = LocalServer(settings)
    started_here = server.pid() is None
    if started_here:
        log(f"starting Neo4j in {settings.home} on port {settings.neo4j_port}")
        server.start()
    try:
        with KnowledgeGraph.connect(settings) as kg:
            kg.init_schema()  # what `kgtool db start` applies: a home this script started first has none
            build(kg, settings.home, args.file, corpora)
            log(f"evaluating {args.method} on {args.file.name}")
            result = kg.evaluate_mquake(str(args.file), methods=args.method, agents="offline",
                                        workers=args.workers, limit=args.limit)
            data = result.as_dict()
    finally:
        if started_here and not args.keep_running:
            server.stop()
    if args.json:
        args.json.write_text(json.dumps(data, indent=1, default=str))
    report(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
