"""`answer_many` throughput: questions per second at 1, 2 and 4 workers.

    .venv/bin/python bench/answer_throughput.py [--workers 1,2,4] [--rounds 3] [--per-round 30]
        [--file PATH] [--seed 7]

A throwaway Neo4j (common.bench_graph) is loaded with the edits of --file
(default ../shared/data/mquake-hard-dev.json). Its questions (every question of
every case) are shuffled with --seed and dealt out in slices of --per-round;
each round gives every worker count its own slice, the order of the worker
counts rotating from round to round, so all of them see the same mix of
machine load and of warm caches. Each slice is one call of
`kg.answer_many(slice, workers=W, agents="offline")` (one driver, a session
per worker; runs and traces written as usual), after a warm-up of 10
questions with one worker (MiniLM, the name keys, query plans).

Printed: per worker count, questions/s over all its slices and per round
(min-max), speed-up over one worker, the answers matching the file's, and the
machine's cores and load (answering shares the cores with the Neo4j server).
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import SHARED_DATA, bench_graph, environment, log, memory_for, mquake_questions, table  # noqa: E402

WARMUP = 10



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="1,2,4", help="comma-separated worker counts (default 1,2,4)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; each gives every worker count a slice")
    parser.add_argument("--per-round", type=int, default=30, help="questions per slice (default 30)")
    parser.add_argument("--file", type=Path, default=SHARED_DATA / "mquake-hard-dev.json")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    counts = [int(w) for w in args.workers.split(",") if w.strip()]

    from kgtool.core.text import normalize

    items = mquake_questions(args.file)
    random.Random(args.seed).shuffle(items)
    needed = WARMUP + args.rounds * len(counts) * args.per_round
    if needed > len(items):
        raise SystemExit(f"{args.file} has {len(items)} questions; {needed} needed: lower --rounds or --per-round")
    warm, rest = items[:WARMUP], items[WARMUP:]

    heap, pagecache = memory_for(len(items))
    seconds = {w: [] for w in counts}
    right = {w: 0 for w in counts}
    answered = {w: 0 for w in counts}
    with bench_graph(heap, pagecache, label="throughput") as kg:
        t0 = time.perf_counter()
        kg.ingest_edits(args.file)
        log(f"{args.file.name} loaded in {time.perf_counter() - t0:.0f} s")
        kg.answer_many([q for q, _ in warm], workers=1, agents="offline")
        position = 0
        for r in range(args.rounds):
            order = counts[r % len(counts):] + counts[: r % len(counts)]
            for w in order:
                chunk = rest[position : position + args.per_round]
                position += args.per_round
                t0 = time.perf_counter()
                results = kg.answer_many([q for q, _ in chunk], workers=w, agents="offline")
                seconds[w].append(time.perf_counter() - t0)
                answered[w] += len(chunk)
                right[w] += sum(bool(a.answer) and normalize(a.answer) in gold for a, (_, gold) in zip(results, chunk))
                log(f"round {r + 1}: {w} worker(s), {len(chunk)} questions in {seconds[w][-1]:.1f} s")

    print(environment())
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}; Neo4j shares the cores")
    base = answered[counts[0]] / sum(seconds[counts[0]])
    rows = []
    for w in counts:
        rate = answered[w] / sum(seconds[w])
        per_round = [args.per_round / s for s in seconds[w]]
        rows.append([w, answered[w], rate, f"{min(per_round):.1f}-{max(per_round):.1f}", rate / base,
                     f"{right[w]}/{answered[w]}"])
    print()
    print(table(["workers", "questions", "questions/s", "per round", f"x {counts[0]} worker(s)", "correct"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
