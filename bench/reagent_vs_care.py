"""ReAgent's answer latency beside CARE's, on the same questions of the same graph.

    .venv/bin/python bench/reagent_vs_care.py [--file PATH] [--questions 60] [--seed 7]
        [--methods care,reagent] [--profile reagent] [--top 25] [--slowest 5]

A throwaway Neo4j (common.bench_graph) is loaded with the edits of --file
(default ../shared/data/mquake-hard-dev.json). --questions of its questions
(shuffled with --seed) are answered one at a time with offline agents, each
question by every method in turn (the order rotating per question), so the
methods share machine load and warm caches; 10 questions are answered first by
each method as a warm-up (MiniLM, name keys, query plans). The latency is the
answer's own (`Answer.latency_ms`: model loading apart), the same figure
`kgtool eval` reports.

Printed: per method p50, p90 and mean latency, correct answers and statuses, and
each method's p50 over the first method's. --profile METHOD profiles that
method's answers (cProfile, cumulative time, --top rows) after the timing, on
the same questions. --slowest N lists each method's N slowest answers (latency,
status, backtracks, question), to see what the tail is made of.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import SHARED_DATA, bench_graph, environment, log, memory_for, mquake_questions, percentile, table  # noqa: E402

WARMUP = 10



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", type=Path, default=SHARED_DATA / "mquake-hard-dev.json")
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--methods", default="care,reagent")
    parser.add_argument("--profile", default=None, help="a method to profile after the timing")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--slowest", type=int, default=0, help="list each method's N slowest answers")
    args = parser.parse_args(argv)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]

    from kgtool.core.text import normalize

    items = mquake_questions(args.file)
    random.Random(args.seed).shuffle(items)
    warm, timed = items[:WARMUP], items[WARMUP:WARMUP + args.questions]
    heap, pagecache = memory_for(len(items))
    latency = {m: [] for m in methods}
    right = Counter()
    statuses = {m: Counter() for m in methods}
    answers = {m: [] for m in methods}
    with bench_graph(heap, pagecache, label="reagent-care") as kg:
        kg.ingest_edits(args.file)
        log(f"{args.file.name} loaded")
        for m in methods:
            for q, _ in warm:
                kg.answer(q, method=m, agents="offline")
        for i, (q, gold) in enumerate(timed):
            for m in methods[i % len(methods):] + methods[: i % len(methods)]:
                a = kg.answer(q, method=m, agents="offline")
                latency[m].append(a.latency_ms)
                answers[m].append(a)
                right[m] += bool(a.answer) and normalize(a.answer) in gold
                statuses[m][a.status] += 1
        log(f"{len(timed)} questions answered by {', '.join(methods)}")
        profile_text = None
        if args.profile:
            prof = cProfile.Profile()
            prof.enable()
            for q, _ in timed:
                kg.answer(q, method=args.profile, agents="offline")
            prof.disable()
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(args.top)
            profile_text = out.getvalue()

    print(environment())
    base = percentile(latency[methods[0]], 50)
    rows = []
    for m in methods:
        xs = latency[m]
        rows.append([m, len(xs), f"{percentile(xs, 50):.0f}", f"{percentile(xs, 90):.0f}",
                     f"{sum(xs) / len(xs):.0f}", f"{percentile(xs, 50) / base:.2f}", f"{right[m]}/{len(xs)}",
                     ", ".join(f"{k} {v}" for k, v in sorted(statuses[m].items()))])
    print()
    print(table(["method", "questions", "p50 ms", "p90 ms", "mean ms", f"p50 x {methods[0]}", "correct", "status"],
                rows))
    for m in methods if args.slowest else []:
        print()
        print(f"{m}: the {args.slowest} slowest answers")
        for a in sorted(answers[m], key=lambda a: -a.latency_ms)[:args.slowest]:
            print(f"  {a.latency_ms:7.0f} ms  {a.status:<10}  backtracks {a.backtracks}  {a.question}")
    if profile_text:
        print()
        print(profile_text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
