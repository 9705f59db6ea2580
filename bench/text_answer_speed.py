"""Answer latency and quality of this checkout beside an older one, on the same store (text QA or MQuAKE).

    KGTOOL_HOME=docs-home KGTOOL_NEO4J_PORT=7731 .venv/bin/python bench/text_answer_speed.py \
        --baseline OLD_TREE --file ../shared/data/text-qa/musique-dev.json --format musique \
        [--methods c2rag,reagent,bm25-reader] [--limit 20] [--json out.json]

    KGTOOL_HOME=edits-home ... bench/text_answer_speed.py --baseline OLD_TREE \
        --file ../shared/data/mquake-hard-dev.json --format mquake --methods care,c2rag,reagent,safe,vog

OLD_TREE is a copy of the older commit's files (`git archive <commit> | tar -x -C OLD_TREE`). The
store of KGTOOL_HOME must hold the file's corpus (`kgtool ingest docs`); its local server is started
if it is not running (as `KnowledgeGraph.connect()` does); both checkouts answer from it with offline
agents. Each checkout runs in its own worker
process (models loaded once, two warm-up questions per method not counted); every question is
answered by both, one after the other, the order alternating per question, so the two share the
machine's load. Printed per method: p50 and mean latency of each (`Answer.latency_ms`, the figure
`kgtool eval` reports), the new/old ratio of the p50s and the median of per-question ratios, EM
and F1 of each, the questions whose answer (or status) differs between the two, and the p50 wall
time of the whole `kg.answer` call (latency_ms leaves out the run's opening and closing writes).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WARMUP = 2


def worker() -> int:
    """Answer {"question", "method"} lines from stdin with the kgtool on PYTHONPATH; one JSON line each."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from kgtool.api import KnowledgeGraph

    kg = KnowledgeGraph.connect()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        t0 = time.perf_counter()
        try:
            a = kg.answer(job["question"], method=job["method"], agents="offline")
            # latency_ms leaves out opening the run and its closing write; the call's own wall time has them
            out = {"ms": a.latency_ms, "wall_ms": (time.perf_counter() - t0) * 1000, "answer": a.answer,
                   "status": a.status}
        except Exception as exc:  # a failing answer is reported, the bench goes on
            out = {"ms": None, "wall_ms": None, "answer": None, "status": f"error: {exc}"}
        print(json.dumps(out), flush=True)
    kg.close()
    return 0


def mquake_items(path: Path, limit: int) -> list:
    """The first question of each MQuAKE case, accepting the post-edit answer and its aliases (the store must
    hold the file's edits: `kgtool ingest edits FILE`)."""
    from types import SimpleNamespace

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import mquake_questions

    return [SimpleNamespace(question=q, answers=sorted(a)) for q, a in mquake_questions(path, first_only=True)][:limit]


class Worker:
    def __init__(self, tree: Path):
        env = {**os.environ, "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker"], env=env,
                                     cwd=str(tree), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert json.loads(self.proc.stdout.readline()).get("ready")

    def ask(self, question: str, method: str) -> dict:
        self.proc.stdin.write(json.dumps({"question": question, "method": method}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=120)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--baseline", type=Path, help="a copy of the older commit's files")
    ap.add_argument("--file", type=Path)
    ap.add_argument("--format", default="musique", help="a QA format of kgtool eval qa, or mquake (the store "
                    "holds the file's edits; each case's first question)")
    ap.add_argument("--methods", default="c2rag,reagent")
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    if args.worker:
        return worker()
    if args.baseline is None or args.file is None:
        ap.error("--baseline and --file are required")
    sys.path.insert(0, str(REPO))
    from kgtool.eval.metrics import exact_match, max_f1
    from kgtool.eval.qa_data import read_qa

    items = mquake_items(args.file, args.limit + WARMUP) if args.format == "mquake" else \
        read_qa(args.file, args.format, limit=args.limit + WARMUP).items
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    trees = {"old": args.baseline.resolve(), "new": REPO}
    workers = {name: Worker(tree) for name, tree in trees.items()}
    print(f"# cores {os.cpu_count()}, load {os.getloadavg()[0]:.1f}, python {sys.version.split()[0]}, "
          f"{args.file.name} first {args.limit} questions after {WARMUP} warm-ups", flush=True)
    rows: dict[str, dict[str, list]] = {m: {"old": [], "new": []} for m in methods}
    t0 = time.time()
    for n, item in enumerate(items):
        for method in methods:
            order = ["old", "new"] if n % 2 == 0 else ["new", "old"]
            got = {name: workers[name].ask(item.question, method) for name in order}
            if n < WARMUP:
                continue
            for name, out in got.items():
                out["em"] = exact_match(out["answer"], item.answers)
                out["f1"] = max_f1(out["answer"], item.answers)
                rows[method][name].append(out)
        print(f"  {n + 1}/{len(items)} questions, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    for w in workers.values():
        w.close()
    print(f"| method | p50 ms old | p50 ms new | new/old (p50) | new/old (median per question) | mean ms old | "
          f"mean ms new | EM old | EM new | F1 old | F1 new | answers changed |")
    print("| --- " * 12 + "|")
    report = {}
    for method, by in rows.items():
        ms = {k: [r["ms"] for r in v if r["ms"] is not None] for k, v in by.items()}
        ratios = [n_["ms"] / o["ms"] for o, n_ in zip(by["old"], by["new"]) if o["ms"] and n_["ms"]]
        p50 = {k: statistics.median(v) if v else float("nan") for k, v in ms.items()}
        mean = {k: statistics.mean(v) if v else float("nan") for k, v in ms.items()}
        em = {k: statistics.mean(r["em"] for r in v) for k, v in by.items()}
        f1 = {k: statistics.mean(r["f1"] for r in v) for k, v in by.items()}
        # a speed change must not change what is answered: the answers that differ, question by question
        changed = [n for n, (o, n_) in enumerate(zip(by["old"], by["new"]), start=WARMUP + 1)
                   if (o["answer"], o["status"]) != (n_["answer"], n_["status"])]
        print(f"| {method} | {p50['old']:.0f} | {p50['new']:.0f} | {p50['new'] / p50['old']:.2f} | "
              f"{statistics.median(ratios):.2f} | {mean['old']:.0f} | {mean['new']:.0f} | {em['old']:.3f} | "
              f"{em['new']:.3f} | {f1['old']:.3f} | {f1['new']:.3f} | {len(changed)} |")
        report[method] = {"p50": p50, "mean": mean, "em": em, "f1": f1, "ratios": ratios, "changed": changed,
                          "rows": by}
    for method, rep in report.items():
        wall = {k: [r["wall_ms"] for r in v if r.get("wall_ms") is not None] for k, v in rep["rows"].items()}
        if wall["old"] and wall["new"]:
            old_p50, new_p50 = statistics.median(wall["old"]), statistics.median(wall["new"])
            print(f"# {method} wall time of the kg.answer call (the run's opening and closing writes included): "
                  f"p50 old {old_p50:.0f} ms, new {new_p50:.0f} ms, new/old {new_p50 / old_p50:.2f}")
        for n in rep["changed"]:
            o, n_ = rep["rows"]["old"][n - WARMUP - 1], rep["rows"]["new"][n - WARMUP - 1]
            print(f"# {method} question {n}: old {o['answer']!r} ({o['status']}), new {n_['answer']!r} ({n_['status']})")
    print(f"# load {os.getloadavg()[0]:.1f} at the end", flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
