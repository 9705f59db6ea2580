"""Rewrites the warm-up list the package ships (kgtool/graph/warmup_statements.json).

    .venv/bin/python bench/warmup_default.py

On a throwaway server loaded with the bundled sample (ingest/sample: its edits), every method answers
every sample question with the offline agents while kgtool.graph.warmup notes the statements sent and
the shapes of their parameters (no words kept). A machine where nothing was asked yet warms these after
`kgtool db start` and after an ingest. Run it again when the statements an answer sends change (the
list holds statement names: a renamed one is counted as failed by the warm-up, not run).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO, bench_graph, log  # noqa: E402

METHODS = ("care", "c2rag", "reagent", "safe", "vog")


def types_only(value):
    """A noted shape with every string one character and every list one item: the types a plan depends on."""
    if isinstance(value, str):
        return "~"
    if isinstance(value, list):
        return [types_only(v) for v in value[:1]]
    if isinstance(value, dict):
        return {k: types_only(v) for k, v in value.items()}
    return value


def main() -> int:
    from kgtool.graph import warmup

    sample = REPO / "ingest" / "sample"
    questions = [json.loads(line)["question"] for line in (sample / "questions.jsonl").read_text().splitlines()
                 if line.strip()]
    with bench_graph("1g", "512m", label="warmup-default") as kg:
        kg.ingest_edits(sample / "edits.jsonl")
        warmup._recording[0] = True  # note without the atexit save: the list is written below
        for method in METHODS:
            for question in questions:
                kg.answer(question, method=method, agents="offline")
            log(f"{method}: {len(warmup._seen)} statement shapes noted so far")
        warmup._recording[0] = False
    # a plan is cached per statement and parameter types: one entry per (statement, types) is enough
    # (the first noted shape of each is kept as noted: strings of their own lengths stay distinct ids)
    firsts: dict[str, str] = {}
    for item in warmup._seen:
        name, params = json.loads(item)
        firsts.setdefault(json.dumps([name, types_only(params)], sort_keys=True), item)
    kept = sorted(firsts.values())
    kept = kept[: warmup.MAX_STATEMENTS]
    warmup.DEFAULT_STATEMENTS.write_text(json.dumps(kept, indent=0) + "\n", encoding="utf-8")
    print(f"{len(kept)} statement shapes written to {warmup.DEFAULT_STATEMENTS.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
