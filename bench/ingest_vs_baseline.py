"""Ingest throughput of this checkout beside an older one (a baseline), side by side in one run.

    .venv/bin/python bench/ingest_vs_baseline.py --baseline DIR [--edits 10000] [--facts 30000]
        [--rounds 3]

DIR is a checkout of kgtool (e.g. `git archive <commit> | tar -x -C DIR`); each side runs in a
subprocess with its own code first on PYTHONPATH (no bytecode written into the baseline), against
ONE throwaway server, into an emptied graph with the schema applied, alternately, the order swapped
every round:

- edits: `kg.ingest_edits(path, extractor="anchor", embed_relations=False)` of --edits synthetic
  edits (distinct subjects, shared objects, each superseding a pre-edit object);
- facts: `kg.ingest_facts(path, embed_relations=False)` of a --facts-line TSV in which a quarter of
  the tails are values (numbers, dates, quantities) and the rest entities.

Printed per side and workload: the median seconds (wall, in the subprocess around the ingest call),
the server's and the client's CPU seconds, facts/s or edits/s, and the ratio this/baseline
(target: within 1.2x).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from common import environment, log, start_server, table  # noqa: E402

_SIDE = """
import json, os, sys, time
from pathlib import Path
from kgtool.api import KnowledgeGraph
from kgtool.config import Settings
from kgtool.graph.server import LocalServer
settings = Settings(home=Path(os.environ["KGTOOL_HOME"]), neo4j_port=int(os.environ["KGTOOL_NEO4J_PORT"]),
                    runtime_dir=Path(os.environ["KGTOOL_RUNTIME_DIR"]))
kind, path = sys.argv[1], sys.argv[2]
pid = LocalServer(settings).pid()
tick = os.sysconf("SC_CLK_TCK")
def server_cpu():
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick
with KnowledgeGraph.connect(settings) as kg:
    kg.clear()
    kg.init_schema()
    kg.db.run_autocommit("admin/await_fulltext")
    s0, c0, t0 = server_cpu(), time.process_time(), time.perf_counter()
    if kind == "edits":
        summary = kg.ingest_edits(path, extractor="anchor", embed_relations=False)
    else:
        summary = kg.ingest_facts(path, embed_relations=False)
    seconds = time.perf_counter() - t0
    out = {"seconds": seconds, "server_cpu": server_cpu() - s0, "client_cpu": time.process_time() - c0,
           "facts": summary.facts}
    import kgtool
    out["kgtool"] = kgtool.__file__
print(json.dumps(out))
"""


def write_edits(path: Path, n: int) -> None:
    with path.open("w") as fh:
        for i in range(n):
            fh.write(json.dumps({"id": f"b-{i}", "subject": f"Person {i}", "relation": "employer",
                                 "object": f"Firm {i % 500}", "old_object": f"Old Firm {i % 300}",
                                 "description": f"Person {i} works for Firm {i % 500}."}) + "\n")


def write_facts(path: Path, n: int) -> None:
    values = ("{} km2", "{}", "{}-03-12", "{}.5")
    with path.open("w") as fh:
        for i in range(n):
            if i % 4 == 0:
                tail = values[(i // 4) % len(values)].format(1000 + i % 900)
                relation = ("area", "population", "founded", "height")[(i // 4) % 4]
            else:
                tail, relation = f"Place {i % 2000}", ("located in", "twinned with", "capital")[i % 3]
            fh.write(f"Town {i // 3}\t{relation}\t{tail}\n")


def run_side(code: Path, settings, kind: str, path: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(code), "PYTHONDONTWRITEBYTECODE": "1",
           "KGTOOL_HOME": str(settings.home), "KGTOOL_NEO4J_PORT": str(settings.neo4j_port),
           "KGTOOL_RUNTIME_DIR": str(settings.runtime_dir), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", _SIDE, kind, str(path)], env=env, capture_output=True, text=True,
                          cwd=str(code))
    if done.returncode != 0:
        raise SystemExit(f"{code} {kind} failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not result["kgtool"].startswith(str(code)):
        raise SystemExit(f"the {code} side ran kgtool from {result['kgtool']}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", type=Path, required=True, help="an older kgtool checkout")
    parser.add_argument("--edits", type=int, default=10000)
    parser.add_argument("--facts", type=int, default=30000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--heap", default="1g")
    parser.add_argument("--pagecache", default="512m")
    args = parser.parse_args()
    sides = {"this": REPO, "baseline": args.baseline.resolve()}
    log(environment())
    with tempfile.TemporaryDirectory(prefix="kgtool-vs-") as tmp:
        files = {"edits": Path(tmp) / "edits.jsonl", "facts": Path(tmp) / "facts.tsv"}
        write_edits(files["edits"], args.edits)
        write_facts(files["facts"], args.facts)
        handle = start_server(args.heap, args.pagecache, label="vs-baseline")
        log(f"Neo4j up on port {handle.settings.neo4j_port} in {handle.started_in:.1f} s")
        try:
            results: dict[tuple[str, str], list[dict]] = {}
            for kind in files:  # a warm-up of each side
                for name, code in sides.items():
                    run_side(code, handle.settings, kind, files[kind])
            for r in range(args.rounds):
                order = list(sides.items()) if r % 2 == 0 else list(reversed(sides.items()))
                for kind in files:
                    for name, code in order:
                        res = run_side(code, handle.settings, kind, files[kind])
                        results.setdefault((kind, name), []).append(res)
                        log(f"round {r + 1} {kind} {name}: {res['seconds']:.2f} s wall, server CPU "
                            f"{res['server_cpu']:.2f} s, client CPU {res['client_cpu']:.2f} s")
        finally:
            handle.stop()
    rows = []
    for kind in files:
        n = args.edits if kind == "edits" else args.facts
        med = {name: {k: statistics.median(x[k] for x in results[(kind, name)])
                      for k in ("seconds", "server_cpu", "client_cpu")} for name in sides}
        for name in sides:
            m = med[name]
            rows.append((kind, name, f"{m['seconds']:.2f}", f"{n / m['seconds']:.0f}", f"{m['server_cpu']:.2f}",
                         f"{m['client_cpu']:.2f}"))
        ratio = med["this"]["seconds"] / med["baseline"]["seconds"]
        cpu = ((med["this"]["server_cpu"] + med["this"]["client_cpu"])
               / (med["baseline"]["server_cpu"] + med["baseline"]["client_cpu"]))
        rows.append((kind, "this/baseline", f"{ratio:.3f}x wall", "", f"{cpu:.3f}x CPU (server+client)", ""))
    print(table(("workload", "side", "median s", "per s", "server CPU s", "client CPU s"), rows))


if __name__ == "__main__":
    main()
