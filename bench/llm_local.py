"""Every method on the local model against the offline agents, on MQuAKE dev cases, in one table.

Starts a throwaway Neo4j and the local llama-server (`kgtool llm serve`'s code, the packaged
Gemma 3 270M unless --model), ingests the dev file, and answers the first question of each of
the first N cases (each case sees its own edits) with each method three ways: offline agents,
LLM agents with the reply schema sent (json_schema), and LLM agents with plain text (no
response_format, the parse-failure baseline). Per method and way: finished runs, correct
answers, the status mix, unusable replies, re-asks, role fallbacks, tokens per question and
latency p50, read back from the Runs in Neo4j.

    .venv/bin/python bench/llm_local.py [--cases 20] [--methods care,c2rag,reagent,safe,vog]
        [--ways offline,schema,text] [--model packaged|PATH] [--data PATH]

A 270M base model is not expected to be accurate; the figures say what a user would see.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import bench_graph, environment, log, percentile, table  # noqa: E402
from kgtool.config import Settings  # noqa: E402
from kgtool.eval.mquake import matches  # noqa: E402
from kgtool.ingest.readers import read_edits  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "mquake-hard-dev.json"
RUN_FIELDS = ("status", "tokens", "latency_ms", "llm_calls", "llm_structured_calls", "llm_unusable_replies",
              "llm_reasks", "llm_role_fallbacks", "llm_format_fallbacks")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--methods", default="care,c2rag,reagent,safe,vog")
    parser.add_argument("--ways", default="offline,schema,text")
    parser.add_argument("--model", default="packaged")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per LLM call")
    args = parser.parse_args()

    from kgtool.graph.server import free_port
    from kgtool.models.llm_server import LocalLLMServer

    cases = read_edits(args.data, "mquake").cases[: args.cases]
    methods = [m for m in args.methods.split(",") if m]
    ways = [w for w in args.ways.split(",") if w]
    log(environment())
    with bench_graph("1g", "256m", label="llm-local") as kg:
        base = kg.settings
        server = LocalLLMServer(Settings(home=base.home, runtime_dir=base.runtime_dir, llm_server_port=free_port()))
        state = server.start(args.model, timeout=900, say=log)
        log(f"llama-server at {state.base_url} ({state.model})")
        try:
            kg.ingest_edits(args.data, format="mquake")
            rows = []
            for way in ways:
                answering = kg_for(kg, way, state, args.timeout)
                for method in methods:
                    rows.append(run_method(answering, method, way, cases))
                    log(f"{method}/{way}: {rows[-1]}")
        finally:
            server.stop()
    headers = ["method", "agents", "finished", "correct", "status mix", "unusable replies", "re-asks",
               "role fallbacks", "tokens/q", "latency p50 (s)"]
    print(table(headers, [[r[h] for h in headers] for r in rows]))


def kg_for(kg, way: str, state, timeout: float):
    """The graph with the settings of one way of answering (same database, own LLM client)."""
    from kgtool.api import KnowledgeGraph

    if way == "offline":
        return kg
    form = {"schema": "json_schema", "text": "text"}[way]
    settings = Settings(**{**kg.settings.__dict__, "llm_base_url": state.base_url, "llm_model": state.model,
                           "llm_timeout": timeout, "llm_max_retries": 1, "llm_output_form": form})
    return KnowledgeGraph(kg.db, settings)


def run_method(kg, method: str, way: str, cases) -> dict:
    agents = "offline" if way == "offline" else "llm"
    statuses, correct, runs, seconds = Counter(), 0, [], []
    for case in cases:
        t0 = time.perf_counter()
        try:
            answer = kg.answer(case.questions[0], method=method, agents=agents, scope={"cases": [case.case_id]})
        except Exception as exc:  # noqa: BLE001 - a failed question is counted, not fatal
            statuses["failed"] += 1
            log(f"{method}/{way} {case.case_id}: {type(exc).__name__}: {exc}")
            continue
        seconds.append(time.perf_counter() - t0)
        statuses[answer.status] += 1
        correct += matches(answer.answer, case.new_answer, case.new_answer_aliases)
        _, found = kg.query("MATCH (r:Run {id: $id}) RETURN " + ", ".join(f"r.{f} AS {f}" for f in RUN_FIELDS),
                            {"id": answer.run_id})
        runs.extend(found)
    n = len(cases)
    total = lambda key: sum(int(r.get(key) or 0) for r in runs)  # noqa: E731
    return {
        "method": method, "agents": way, "finished": f"{n - statuses['failed']}/{n}", "correct": f"{correct}/{n}",
        "status mix": " ".join(f"{k}:{v}" for k, v in sorted(statuses.items())),
        "unusable replies": f"{total('llm_unusable_replies')}/{total('llm_calls')}" if agents == "llm" else "-",
        "re-asks": total("llm_reasks") if agents == "llm" else "-",
        "role fallbacks": total("llm_role_fallbacks") if agents == "llm" else "-",
        "tokens/q": round(total("tokens") / max(1, len(runs))),
        "latency p50 (s)": round(percentile(seconds, 50), 1) if seconds else "-",
    }


if __name__ == "__main__":
    main()
