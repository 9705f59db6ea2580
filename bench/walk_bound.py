"""Graph-walk retrieval: the effect of the subgraph bound on recall and time per question.

    KGTOOL_HOME=... .venv/bin/python bench/walk_bound.py QUESTIONS.json --format musique
        [--max-new 0,50,200,800] [--limit N] [--retriever hybrid+walk]

Runs against the graph of the configured store (ingest the corpora first with
`kgtool ingest docs`; the server must be running). For each value of the
walk's `max_new` (passages the walk may add to the first-stage pool; 200 is
the default) it prints recall@5 of the retriever, the mean subgraph it walked
(passages, entities, edges) and the time per question, with plain hybrid
retrieval and BM25 of the same run as the reference. max_new 0 walks only the
first-stage pool and its entities.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

from common import environment, log, table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("questions")
    parser.add_argument("--format", required=True, choices=("musique", "hotpotqa"))
    parser.add_argument("--max-new", default="0,50,200,800")
    parser.add_argument("--per-entity", type=int, default=None)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--retriever", default="hybrid+walk")
    args = parser.parse_args()

    from kgtool.api import KnowledgeGraph
    from kgtool.core.scope import Scope
    from kgtool.eval.retrieval import BM25Baseline, GoldIndex, read_questions
    from kgtool.retrieve.passages import make_retriever

    print(environment())
    kg = KnowledgeGraph.connect()
    questions = read_questions(args.questions, args.format, limit=args.limit)
    passages = kg.db.read("passages/all")
    index = GoldIndex(passages)
    gold = [[index.ids(g) for g in q.gold] for q in questions]
    baseline = BM25Baseline(passages)

    def recall(ranked_lists) -> float:
        values = []
        for ranked, ids in zip(ranked_lists, gold):
            top = set(ranked[:5])
            values.append(sum(1 for g in ids if g and top.intersection(g)) / len(ids))
        return 100 * statistics.mean(values)

    rows = [("bm25 (baseline)", "-", f"{recall([baseline.top(q.question, 5) for q in questions]):.1f}", "-", "-",
             "-", "-")]
    configs = [("hybrid", None)] + [(args.retriever, int(n)) for n in args.max_new.split(",")]
    with kg.db.session(read_only=True) as session:
        for name, max_new in configs:
            walk = {} if max_new is None else {"max_new": max_new}
            if max_new is not None and args.per_entity:
                walk["per_entity"] = args.per_entity
            overrides = {"walk": {**make_retriever_walk(name), **walk}} if max_new is not None else {}
            retriever = make_retriever(kg.db, name, embedder=kg.embedder, registry=kg.scorers, **overrides)
            ranked, seconds, sizes = [], [], []
            log(f"{name} max_new={max_new}")
            for q in questions:
                t0 = time.perf_counter()
                ranked.append([h.passage_id for h in retriever.retrieve(session, q.question, Scope(), 5)])
                seconds.append(time.perf_counter() - t0)
                if getattr(retriever, "last_walk", None):
                    sizes.append(retriever.last_walk)
            mean = (lambda key: f"{statistics.mean(s[key] for s in sizes):.0f}") if sizes else (lambda key: "-")
            rows.append((name, "-" if max_new is None else max_new, f"{recall(ranked):.1f}", mean("passages"),
                         mean("entities"), mean("edges"), f"{1000 * statistics.median(seconds):.0f}"))
    kg.close()
    print(f"{args.questions}: {len(questions)} questions, {len(passages)} passages in the graph")
    print(table(("retriever", "max_new", "R@5", "passages", "entities", "edges", "p50 ms"), rows))
    return 0


def make_retriever_walk(name: str) -> dict:
    from kgtool.retrieve.passages import PRESETS

    return dict(PRESETS[name].get("walk") or {})


if __name__ == "__main__":
    sys.exit(main())
