"""How often the offline planner's plan is the gold path, in memory (no Neo4j), per dev file.

A plan is right when its hops end, one by one, at the gold hop entities (the paraphrase sets'
`hop_answers`; MQuAKE's `new_single_hops`, aliases included). This is the planner alone: the
selector and critic of a method may still repair or spoil a plan, so `kgtool eval` stays the
measure of record; this is the quick loop for planner work.

    .venv/bin/python bench/planner_gold_paths.py tests/data/paraphrase [--structured on|off] [-v]
    .venv/bin/python bench/planner_gold_paths.py ../shared/data/mquake-hard-dev.json [--limit N]

A directory is read as a paraphrase set (kg.jsonl + questions.jsonl, loaded the way `kgtool
ingest facts` loads them: readable relation labels, a plain sentence as evidence); a .json file
as MQuAKE (every case's edits in one store, as bench/dev_offline_agents.py builds it).
-v prints each wrong plan (do not use it on the held-out set while tuning).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dev_offline_agents import MemoryGraph, _matches, build_graph, load_embedder  # noqa: E402

from kgtool.core.text import relation_key  # noqa: E402
from kgtool.core.types import CandidateFact  # noqa: E402
from kgtool.ingest.facts import readable_name, readable_relation  # noqa: E402
from kgtool.ingest.linking import canonical_id  # noqa: E402
from kgtool.reason.agents.offline import OfflinePlanner, Thresholds  # noqa: E402
from kgtool.reason.relmatch import RelationMatcher  # noqa: E402


def paraphrase_set(directory: Path) -> tuple[MemoryGraph, list[tuple[str, list[list[str]], int]]]:
    g = MemoryGraph()
    for n, line in enumerate(open(directory / "kg.jsonl")):
        row = json.loads(line)
        head, tail = readable_name(row["head"])[0], readable_name(row["tail"])[0]
        label = readable_relation(row["relation"])
        h, t = canonical_id(head), canonical_id(tail)
        g.add_entity(h, head)
        g.add_entity(t, tail)
        key = relation_key(label)
        g.add_phrase(key, label)
        g.add_fact(CandidateFact(fact_id=f"f{n}", head_id=h, head=head, relation=label, relation_id=None,
                                 tail_id=t, tail=tail, evidence=f"{head} {label} {tail}."))
    questions = [(r["question"], [[a] for a in r["hop_answers"]], r["hops"])
                 for r in map(json.loads, open(directory / "questions.jsonl"))]
    return g, questions


def mquake_set(path: Path, limit: int) -> tuple[MemoryGraph, list[tuple[str, list[list[str]], int]]]:
    cases = json.loads(path.read_text())
    g = build_graph(cases)
    questions = []
    for case in cases[:limit] if limit else cases:
        gold = [[h["answer"], *h.get("answer_alias", [])] for h in case["new_single_hops"]]
        questions += [(q, gold, len(gold)) for q in case["questions"]]
    return g, questions


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", type=Path)
    ap.add_argument("--structured", choices=["on", "off", "default"], default="default")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1,
                    help="torch CPU threads (default 1: on a busy 2-core machine more threads made each "
                         "MiniLM call ~13x slower, 682 vs 53 ms)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    graph, questions = (paraphrase_set(args.data) if args.data.is_dir() else mquake_set(args.data, args.limit))
    matcher = RelationMatcher(load_embedder(args.threads))
    options = {} if args.structured == "default" else {"structured": args.structured == "on"}
    planner = OfflinePlanner(graph, matcher, thresholds=Thresholds(), **options)
    planner.plan(questions[0][0])  # warm the models, not the figures
    right: dict[int, list[bool]] = defaultdict(list)
    times = []
    for question, gold, hops in questions:
        t0 = time.perf_counter()
        plan = planner.plan(question)
        times.append((time.perf_counter() - t0) * 1000)
        names = [graph.entity_name(e) for e in plan.entities]
        ok = len(names) == len(gold) and all(_matches(n, g[0], g[1:]) for n, g in zip(names, gold))
        right[hops].append(ok)
        if args.verbose and not ok:
            print(f"XX {question}\n   plan {plan.relations} -> {names}\n   gold {[g[0] for g in gold]}"
                  f" unexplained {plan.unexplained}")
    total = [x for v in right.values() for x in v]
    by_hops = " ".join(f"{h}-hop {sum(v) / len(v):.3f} ({len(v)})" for h, v in sorted(right.items()))
    print(f"{args.data} structured={planner.structured} gold paths {sum(total) / len(total):.3f} of {len(total)}"
          f" | {by_hops} | ms/question p50 {statistics.median(times):.1f} mean {statistics.fmean(times):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
