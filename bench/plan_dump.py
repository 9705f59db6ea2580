"""Dump the shared offline planner's plan and question reading for every question of a file (JSON).

For trying status rules offline: each row has the question, its gold answers, the plan's
relations, directions, the words each hop explains, per-hop scores, the plan's unexplained
phrases, the planned answer's name and the question's reading (segments with their
optional/soft flags, the answer type). Runs against the store of KGTOOL_HOME (started if it
is not running, stopped afterwards); answers nothing and writes no Run.

    KGTOOL_HOME=... KGTOOL_NEO4J_PORT=... .venv/bin/python bench/plan_dump.py QUESTIONS OUT.json

QUESTIONS: an MQuAKE .json (each case's questions, gold = new answer and aliases) or one or
more comma-separated kgtool QA .jsonl files ({"id", "question", "answers", ...}).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kgtool.api import KnowledgeGraph, local_server  # noqa: E402
from kgtool.config import Settings  # noqa: E402
from kgtool.core.scope import Scope  # noqa: E402
from kgtool.reason.agents.factory import offline_agents  # noqa: E402
from kgtool.reason.question import read_question  # noqa: E402


def read_items(source: str) -> list[dict]:
    if source.endswith(".json"):
        items = []
        for case in json.loads(Path(source).read_text()):
            gold = [case["new_answer"], *case.get("new_answer_alias", [])]
            items += [{"id": case["case_id"], "question": q, "answers": gold} for q in case["questions"]]
        return items
    return [json.loads(line) for f in source.split(",") for line in Path(f).read_text().splitlines() if line.strip()]


def dump(kg: KnowledgeGraph, item: dict) -> dict:
    plan = offline_agents(kg, Scope()).planner.plan(item["question"])
    names = kg.catalog.gazetteer.entity_names(plan.entities) if plan.entities else {}
    topic = next(((s, e) for s, e, eid, _ in kg.catalog.link_mentions(item["question"]) if eid == plan.topic_id), None)
    reading = read_question(item["question"], topic) if topic else None
    return {**item, "topic": plan.topic, "relations": plan.relations, "directions": getattr(plan, "directions", None),
            "explained": plan.explained, "scores": [float(x) for x in plan.scores], "unexplained": plan.unexplained,
            "answer": names.get(plan.entities[-1]) if plan.entities else None, "score": float(plan.score),
            "reading": None if reading is None else {
                "answer_type": reading.answer_type,
                "segments": [{"words": list(s.words), "content": list(s.content), "optional": s.optional,
                              "soft": s.soft} for s in reading.segments]}}


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    settings = Settings.load()
    server = local_server(settings)
    started = server.pid() is None
    if started:
        server.start()
    try:
        with KnowledgeGraph.connect(settings) as kg:
            rows = [dump(kg, item) for item in read_items(sys.argv[1])]
    finally:
        if started:
            server.stop()
    Path(sys.argv[2]).write_text(json.dumps(rows, indent=1))
    print(f"{len(rows)} plans written to {sys.argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
