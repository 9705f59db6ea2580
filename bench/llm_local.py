"""Every method on the local model against the offline agents, on MQuAKE dev cases, in one table.

Starts a throwaway Neo4j, ingests the dev file, and answers the first question of each of the
first N cases (each case sees its own edits) with each method three ways: offline agents, LLM
agents with the reply schema sent (json_schema), and LLM agents with plain text (no
response_format, the parse-failure baseline). Per method and way: finished runs, correct
answers, the status mix, runs left open or failed, unparseable replies (not JSON of the schema's
shape) over calls, replies refused by the content checks, re-asks, role fallbacks, tokens per question and
latency p50, read back from the Runs in Neo4j.

The LLM is the local llama-server: the one `kgtool llm serve` left running (--base-url), or one
this script starts (`kgtool llm serve`'s code, the packaged Gemma 3 270M unless --model).

Each answered case is appended to --out (JSONL) as soon as it finishes, and a re-run skips the
(method, way, case) rows already there, so a stopped run resumes and a partial run still gives
figures; `--report` prints the table of what the file holds without answering anything.

    python bench/llm_local.py [--cases 20] [--methods care,c2rag,reagent,safe,vog]
        [--ways offline,schema,text] [--base-url URL --model-name NAME | --model packaged|PATH]
        [--out llm_local.jsonl] [--report]

A 270M base model is not expected to be accurate; the figures say what a user would see.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import bench_graph, environment, log, percentile, table  # noqa: E402
from kgtool.config import Settings  # noqa: E402
from kgtool.eval.mquake import matches  # noqa: E402
from kgtool.ingest.readers import read_edits  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "mquake-hard-dev.json"
RUN_FIELDS = ("status", "tokens", "latency_ms", "llm_calls", "llm_structured_calls", "llm_unusable_replies", "llm_unparseable_replies",
              "llm_reasks", "llm_role_fallbacks", "llm_format_fallbacks", "llm_trimmed_prompts")
HEADERS = ["method", "agents", "cases", "finished", "correct", "status mix", "runs open/failed",
           "unparseable replies", "refused replies", "re-asks", "role fallbacks", "tokens/q", "latency p50 (s)"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--methods", default="care,c2rag,reagent,safe,vog")
    parser.add_argument("--ways", default="offline,schema,text")
    parser.add_argument("--base-url", default=None, help="a running server (e.g. `kgtool llm serve`'s)")
    parser.add_argument("--model-name", default=None, help="the model name at --base-url")
    parser.add_argument("--model", default="packaged", help="GGUF to serve when no --base-url")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per LLM call")
    parser.add_argument("--out", type=Path, default=Path("llm_local.jsonl"),
                        help="the JSONL of finished rows (default: llm_local.jsonl in the current directory)")
    parser.add_argument("--report", action="store_true", help="only print the table of --out")
    parser.add_argument("--until", default=None, help="HH:MM (local time): start no case after it")
    parser.add_argument("--by-case", action="store_true",
                        help="every method on a case before the next case (default: a method's cases in a row)")
    args = parser.parse_args()

    if not args.report:
        answer_all(args)
    print(table(HEADERS, summarise(load_rows(args.out))))


def answer_all(args) -> None:
    cases = read_edits(args.data, "mquake").cases[: args.cases]
    methods = [m for m in args.methods.split(",") if m]
    ways = [w for w in args.ways.split(",") if w]
    done = {(r["method"], r["agents"], r["case"]) for r in load_rows(args.out)}
    if args.by_case:
        todo = [(w, m, c) for w in ways for c in cases for m in methods]
    else:
        todo = [(w, m, c) for w in ways for m in methods for c in cases]
    todo = [(w, m, c) for w, m, c in todo if (m, w, c.case_id) not in done]
    if not todo:
        log(f"every row is already in {args.out}")
        return
    log(environment())
    with bench_graph("1g", "256m", label="llm-local") as kg:
        server, endpoint = llm_endpoint(args, kg.settings)
        try:
            kg.ingest_edits(args.data, format="mquake")
            graphs = {w: kg_for(kg, w, endpoint, args.timeout) for w in ways}
            with args.out.open("a") as out:
                for index, (way, method, case) in enumerate(todo):
                    if past(args.until):
                        log(f"{args.until} reached: {len(todo) - index} row(s) not started; re-run to resume")
                        break
                    row = answer_case(graphs[way], method, way, case)
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                    log(f"{method}/{way} {case.case_id}: {row['status']} correct={row['correct']} "
                        f"{row['seconds']:.0f}s calls={row.get('llm_calls')} unparseable={row.get('llm_unparseable_replies')} "
                        f"unusable={row.get('llm_unusable_replies')} fallbacks={row.get('llm_role_fallbacks')}")
        finally:
            if server is not None:
                server.stop()


def past(until: str | None) -> bool:
    if not until:
        return False
    hour, minute = map(int, until.split(":"))
    now = time.localtime()
    return (now.tm_hour, now.tm_min) >= (hour, minute)


def llm_endpoint(args, base: Settings):
    """(the server this script started or None, (base_url, model)) for the LLM ways."""
    if args.base_url:
        return None, (args.base_url, args.model_name or "local")
    from kgtool.graph.server import free_port
    from kgtool.models.llm_server import LocalLLMServer

    server = LocalLLMServer(Settings(home=base.home, runtime_dir=base.runtime_dir, llm_server_port=free_port()))
    state = server.start(args.model, timeout=900, say=log)
    log(f"llama-server at {state.base_url} ({state.model})")
    return server, (state.base_url, state.model)


def kg_for(kg, way: str, endpoint: tuple[str, str], timeout: float):
    """The graph with the settings of one way of answering (same database, own LLM client)."""
    from kgtool.api import KnowledgeGraph

    if way == "offline":
        return kg
    form = {"schema": "json_schema", "text": "text"}[way]
    settings = Settings(**{**kg.settings.__dict__, "llm_base_url": endpoint[0], "llm_model": endpoint[1],
                           "llm_timeout": timeout, "llm_max_retries": 1, "llm_output_form": form})
    return KnowledgeGraph(kg.db, settings)


def answer_case(kg, method: str, way: str, case) -> dict:
    """One case's row: status, correctness, wall seconds and the Run's counters from Neo4j."""
    agents = "offline" if way == "offline" else "llm"
    row = {"method": method, "agents": way, "case": case.case_id}
    t0 = time.perf_counter()
    try:
        answer = kg.answer(case.questions[0], method=method, agents=agents, scope={"cases": [case.case_id]})
    except Exception as exc:  # noqa: BLE001 - a failed question is counted, not fatal
        return {**row, "status": "error", "correct": False, "seconds": time.perf_counter() - t0,
                "error": f"{type(exc).__name__}: {exc}"[:300]}
    row.update(status=answer.status, correct=matches(answer.answer, case.new_answer, case.new_answer_aliases),
               answer=answer.answer, seconds=time.perf_counter() - t0, run_id=answer.run_id)
    _, found = kg.query("MATCH (r:Run {id: $id}) RETURN " + ", ".join(f"r.{f} AS {f}" for f in RUN_FIELDS),
                        {"id": answer.run_id})
    if found:
        row.update({("run_status" if k == "status" else k): v for k, v in found[0].items()})
    return row


def load_rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def summarise(rows: list[dict]) -> list[list]:
    """One table row per (method, way), in the order first seen."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["method"], r["agents"])].append(r)
    out = []
    for (method, way), rs in groups.items():
        n = len(rs)
        llm = way != "offline"
        total = lambda key: sum(int(r.get(key) or 0) for r in rs)  # noqa: E731
        statuses = Counter(r["status"] for r in rs)
        open_or_failed = sum(r.get("run_status") in ("running", "failed") for r in rs)
        seconds = [r["seconds"] for r in rs if r["status"] != "error"]
        out.append([
            method, way, n, f"{n - statuses['error']}/{n}", f"{sum(bool(r['correct']) for r in rs)}/{n}",
            " ".join(f"{k}:{v}" for k, v in sorted(statuses.items())),
            f"{open_or_failed}/{statuses['error']}",
            f"{total('llm_unparseable_replies')}/{total('llm_calls')}" if llm else "-",
            total("llm_unusable_replies") - total("llm_unparseable_replies") if llm else "-",
            total("llm_reasks") if llm else "-",
            total("llm_role_fallbacks") if llm else "-",
            round(total("tokens") / max(1, n)),
            round(percentile(seconds, 50), 1) if seconds else "-",
        ])
    return out


if __name__ == "__main__":
    main()
