"""Every own and dev QA set, answered by one checkout's code: Acc, Hop-Acc and statuses per method.

    .venv/bin/python bench/dev_sets.py --out after.json [--code DIR] [--sets a,b] [--method care,...]
    .venv/bin/python bench/dev_sets.py --compare before.json after.json

A change to the question front end must not lower any set's Acc or Hop-Acc for any method
(issue 44). This script answers each set in a store of its own (a throwaway KGTOOL_HOME and
port), through the CLI of the checkout named by --code (default: this one; its code goes on
PYTHONPATH, the interpreter and packages are this one's), with offline agents and one worker,
and writes per set and method: acc, hop_acc, questions, the status counts on answerable and on
unanswerable questions, and every question's prediction and status. --compare prints a table of
two such files and every question whose correctness changed.

Run two checkouts one after the other on a quiet machine, or side by side with --port apart;
answers do not depend on load, latency does (not compared here).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OWN = ROOT / "tests" / "data"
SHARED = ROOT.parent / "shared" / "data"


def _qa(*paths: Path) -> list[tuple[str, Path]]:
    return [("qa", p) for p in paths]


def _facts_set(name: str, kg: str = "kg.jsonl") -> tuple[str, Path, list]:
    d = OWN / name
    files = [d / "questions.jsonl"] + ([d / "unanswerable.jsonl"] if (d / "unanswerable.jsonl").exists() else [])
    return ("facts", d / kg, _qa(*files))


SETS: dict[str, tuple[str, Path, list[tuple[str, Path]]]] = {
    "mquake": ("edits", SHARED / "mquake-hard-dev.json", [("mquake", SHARED / "mquake-hard-dev.json")]),
    "paraphrase": _facts_set("paraphrase"),
    "paraphrase_heldout": _facts_set("paraphrase_heldout"),
    "handwritten": _facts_set("handwritten"),
    "handwritten2": _facts_set("handwritten2"),
    "handwritten3": _facts_set("handwritten3"),
    "handwritten4": _facts_set("handwritten4"),
    "handwritten5": _facts_set("handwritten5", "kg.nt"),
    "handwritten6": _facts_set("handwritten6", "kg.tsv"),
    "handwritten7": _facts_set("handwritten7"),
    "roles": ("facts", OWN / "paraphrase" / "kg.jsonl",
              _qa(OWN / "roles" / "questions.jsonl", OWN / "roles" / "unanswerable.jsonl")),
    "status": ("facts", OWN / "status" / "kg.jsonl", _qa(OWN / "status" / "questions.jsonl")),
    "pathq_own": ("facts", OWN / "pathq_own" / "kb.txt",
                  _qa(OWN / "pathq_own" / "PQ-2H.txt", OWN / "pathq_own" / "PQ-3H.txt")),
    "real_countries": _facts_set("real_countries", "kg.tsv"),
}
METHODS = "care,c2rag,reagent,safe,vog"


def _run(cmd: list[str], env: dict, log) -> None:
    t0 = time.perf_counter()
    # run from the code's own directory: `python -m` puts the working directory first on sys.path, ahead of
    # PYTHONPATH, so a run from another checkout answered with that checkout's code
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=env["PYTHONPATH"])
    log(f"  {' '.join(cmd[3:6])} ... rc {proc.returncode} in {time.perf_counter() - t0:.0f} s")
    if proc.returncode not in (0, 1):  # eval exits 1 when a question is answered wrong
        raise SystemExit(f"{' '.join(cmd)} failed (rc {proc.returncode}):\n{proc.stderr[-3000:]}")


def _summary(report: dict) -> dict:
    out = {}
    for method, s in report["methods"].items():
        results = s.get("results", [])
        out[method] = {
            "acc": s.get("acc"), "hop_acc": s.get("hop_acc"), "questions": s.get("questions", s.get("cases")),
            "answered": sum(r.get("status") == "answered" for r in results),
            "no_answer": sum(r.get("status") == "no_answer" for r in results),
            "results": [{k: r.get(k) for k in ("id", "question", "prediction", "em", "hop_correct", "status", "answerable",
                                                  "confidence", "confidence_evidence", "guess_em", "reason")}
                        for r in results],
        }
    return out


def run_set(name: str, python: str, code: Path, port: int, methods: str, log) -> dict:
    kind, source, evals = SETS[name]
    home = Path(tempfile.mkdtemp(prefix=f"devsets-{name}-"))
    env = {**os.environ, "PYTHONPATH": str(code), "KGTOOL_HOME": str(home), "KGTOOL_NEO4J_PORT": str(port),
           "KGTOOL_NEO4J_HTTP_PORT": str(port + 1), "HF_HUB_OFFLINE": "1"}
    env.pop("KGTOOL_LLM_BASE_URL", None)
    cli = [python, "-m", "kgtool.cli"]
    found = subprocess.run([python, "-c", "import kgtool; print(kgtool.__file__)"], env=env, cwd=str(code),
                           capture_output=True, text=True).stdout.strip()
    if not Path(found).resolve().is_relative_to(code.resolve()):
        raise SystemExit(f"kgtool imports from {found}, not from --code {code}")
    out: dict = {}
    try:
        _run(cli + ["db", "start"], env, log)
        _run(cli + ["ingest", kind, str(source)], env, log)
        for how, path in evals:
            report = home / f"{path.stem}.json"
            _run(cli + ["eval", how, str(path), "--method", methods, "--agents", "offline", "--workers", "1",
                        "--json", str(report)], env, log)
            out[path.name] = _summary(json.loads(report.read_text()))
    finally:
        subprocess.run(cli + ["db", "stop"], env=env, capture_output=True, cwd=str(code))
        shutil.rmtree(home, ignore_errors=True)
    return out


def compare(before_path: Path, after_path: Path) -> int:
    before, after = json.loads(before_path.read_text()), json.loads(after_path.read_text())
    print("| set / file | method | Acc before / after | Hop-Acc before / after | answered before / after |")
    print("| --- | --- | --- | --- | --- |")
    changed = []
    worse = 0
    for key in before:
        for file, methods in before[key].items():
            for method, b in methods.items():
                a = after.get(key, {}).get(file, {}).get(method)
                if a is None:
                    continue

                def f(x):
                    return "-" if x is None else f"{x:.3f}"
                print(f"| {key}/{file} | {method} | {f(b['acc'])} / {f(a['acc'])} | {f(b['hop_acc'])} / "
                      f"{f(a['hop_acc'])} | {b['answered']} / {a['answered']} |")
                worse += (a["acc"] or 0) < (b["acc"] or 0) or (a["hop_acc"] or 0) < (b["hop_acc"] or 0)
                by_q = {r["question"]: r for r in a["results"]}
                for r in b["results"]:
                    n = by_q.get(r["question"])
                    if n and (n["em"], n["status"]) != (r["em"], r["status"]):
                        changed.append(f"{key} {method}: {r['question']!r}: {r['prediction']!r} {r['status']} "
                                       f"{'right' if r['em'] else 'wrong'} -> {n['prediction']!r} {n['status']} "
                                       f"{'right' if n['em'] else 'wrong'}")
    print(f"\n{worse} set-method rows lower in Acc or Hop-Acc; {len(changed)} questions changed:")
    for line in changed:
        print("  " + line)
    return 1 if worse else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout whose kgtool answers")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--method", default=METHODS)
    parser.add_argument("--port", type=int, default=7790)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if not args.out:
        parser.error("--out FILE is needed (or --compare BEFORE AFTER)")
    if not SHARED.is_dir():
        raise SystemExit(f"{SHARED} not found: the dev data sits beside the checkout in ../shared/data")
    results = json.loads(args.out.read_text()) if args.out.exists() else {}

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)
    for name in args.sets.split(","):
        log(f"{name} (code {args.code})")
        results[name] = run_set(name, sys.executable, args.code.resolve(), args.port, args.method, log)
        args.out.write_text(json.dumps(results, indent=1))  # a set at a time: an interrupted run keeps what it has
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
