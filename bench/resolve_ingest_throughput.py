"""Fact-file ingest with its default entity resolution: this checkout against a baseline checkout, side by side.

    .venv/bin/python bench/resolve_ingest_throughput.py --baseline DIR [--file FILE] [--rounds 2]

DIR is another checkout of kgtool (e.g. `mkdir ../kgtool-main && git archive main | tar -x -C ../kgtool-main`).
Both run the CLI as a user does, `kgtool ingest facts FILE` with the default `--resolve`, each with its own code first
on PYTHONPATH, into the SAME throwaway server, emptied before each run, interleaved (baseline, this,
baseline, this, ...) after one warm-up of each. Timed: the whole command (read, write, resolution, the
summary), wall seconds, the CPU seconds of the command's process and of the server's JVM. Also printed:
each run's merge count (the line the ingest prints about resolution).

Default FILE: tests/data/resolve_real/facts.tsv (7.8k triples of countries, cities, subdivisions; real
names from pycountry / GeoNames, with many near names). Target (issue 42): this checkout within 1.2x
of the baseline's wall time.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CpuClock, bench_graph, environment, load_average, log, table, verdict  # noqa: E402

HERE = Path(__file__).resolve().parent.parent
TARGET_RATIO = 1.2


def run(code: Path, path: Path, settings, kgtool_bin: Path) -> tuple[float, float, str]:
    env = {**os.environ, "PYTHONPATH": str(code), "KGTOOL_HOME": str(settings.home),
           "KGTOOL_NEO4J_PORT": str(settings.neo4j_port), "KGTOOL_RUNTIME_DIR": str(settings.runtime_dir)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([str(kgtool_bin), "ingest", "facts", str(path)], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode:
        raise SystemExit(f"{code}: exit {out.returncode}\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
    line = next((ln.strip() for ln in out.stdout.splitlines() if ln.startswith("resolve (")), "no resolution line")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, line


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", required=True, type=Path, help="another kgtool checkout (its repo root)")
    ap.add_argument("--file", type=Path, default=HERE / "tests" / "data" / "resolve_real" / "facts.tsv")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    kgtool_bin = Path(sys.executable).parent / "kgtool"
    sides = {"baseline": args.baseline.resolve(), "this": HERE}
    log(environment())
    times: dict[str, list[tuple[float, float, float]]] = {k: [] for k in sides}
    lines: dict[str, str] = {}
    with bench_graph("1g", "512m", label="resolve-bench") as kg:
        clock = CpuClock(kg)
        for round_ in range(args.rounds + 1):  # round 0 warms both up
            for side, code in sides.items():
                kg.clear()
                kg.init_schema()
                s0 = clock.server()
                wall, cpu, line = run(code, args.file, kg.settings, kgtool_bin)
                server = clock.server() - s0
                lines[side] = line
                log(f"round {round_} {side}: {wall:.1f} s wall, {cpu:.1f} s client CPU, {server:.1f} s server CPU; "
                    f"{line} ({load_average()})")
                if round_:
                    times[side].append((wall, cpu, server))
    rows = []
    for side in sides:
        walls, cpus, servers = zip(*times[side])
        rows.append([side, f"{statistics.median(walls):.1f}", f"{statistics.median(cpus):.1f}",
                     f"{statistics.median(servers):.1f}", re.sub(r"\s+", " ", lines[side])[:90]])
    print(table(["code", "wall s (median)", "client CPU s", "server CPU s", "resolution"], rows))
    ratio = statistics.median(w for w, _c, _s in times["this"]) / statistics.median(w for w, _c, _s in times["baseline"])
    cpu_ratio = (statistics.median(c + s for _w, c, s in times["this"])
                 / statistics.median(c + s for _w, c, s in times["baseline"]))
    print(f"wall ratio this/baseline {ratio:.2f}, CPU ratio {cpu_ratio:.2f} (target <= {TARGET_RATIO}): "
          f"{verdict(ratio <= TARGET_RATIO)}")


if __name__ == "__main__":
    main()
