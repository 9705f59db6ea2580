"""Graph-walk retrieval: recall@2/5/10 and time per question of walk options on top of a preset.

    KGTOOL_HOME=... .venv/bin/python bench/walk_variants.py QUESTIONS.json --format musique \\
        --variants '{"names": ["dense+walk", {"seeds": "names"}], "facts": ["dense+walk", {"seeds": "facts"}]}'

Each variant is [preset, walk options] (kgtool.retrieve.passages.PassageRetriever's
`walk`: seeds, passage_seeds, max_new, per_entity, ...), optionally with a third
item of other retriever options ({"pools": ["vector", "linked", "walk"]}). They run
through `kg.evaluate_retrieval`, so the figures are those `kgtool eval retrieval`
would print for a preset with these options, next to BM25 of the same run. The
server must be running, with the corpora ingested.
"""
from __future__ import annotations

import argparse
import json
import sys

from common import environment


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("questions")
    parser.add_argument("--format", required=True, choices=("musique", "hotpotqa"))
    parser.add_argument("--variants", required=True, help="JSON object: name -> [preset, walk options, other options]")
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()

    from kgtool.api import KnowledgeGraph
    from kgtool.retrieve import passages

    variants = json.loads(args.variants)
    for name, spec in variants.items():
        base, walk, extra = spec[0], spec[1], (spec[2] if len(spec) > 2 else {})
        # registered for this process only, so evaluate_retrieval runs them like any preset
        passages.PRESETS[name] = {**passages.PRESETS[base], "walk": {**passages.PRESETS[base].get("walk", {}), **walk},
                                  **extra}
    print(environment())
    kg = KnowledgeGraph.connect()
    report = kg.evaluate_retrieval(args.questions, format=args.format, k="2,5,10", retrievers=",".join(variants),
                                   limit=args.limit).as_dict()
    kg.close()
    print(f"{args.questions}: {report['questions']} questions, {report['passages_in_graph']} passages in the graph")
    print("| variant | R@2 | R@5 | R@10 | s / question | passages walked |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, result in report["retrievers"].items():
        recall = result["recall"]
        walked = (result["subgraph"] or {}).get("passages", "-")
        print(f"| {name} | {100 * recall['@2']:.1f} | {100 * recall['@5']:.1f} | {100 * recall['@10']:.1f} | "
              f"{result['seconds'] / report['questions']:.2f} | {walked} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
