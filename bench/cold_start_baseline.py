"""`kgtool ask` cold, this checkout against another one's code, on one store (bench/cold_start.py --baseline).

    mkdir ../main-77633d9 && git archive 77633d9 | tar -x -C ../main-77633d9
    .venv/bin/python bench/cold_start.py --baseline ../main-77633d9 [--facts F] [--rounds 3] [--later 5]

One local store (a temporary home, --port) is loaded once with `kgtool ingest facts F` (default
tests/data/real_countries/kg.tsv, ~4,000 facts). Each command is a new process of one code (its
directory first on PYTHONPATH), `now` (this checkout) or `baseline`, in alternating order:

- first ask: per round and code, `kgtool db stop`, `kgtool db start` with that code (this one then
  starts its background warm-up, kgtool.graph.warmup: waited for and its time printed apart), then
  one ask (--no-history: the statements earlier asks noted are forgotten first, so this checkout warms
  the list the package ships, as on a machine where nothing was asked yet); the vector cache is kept, as a new store's ingest fills it with the store's relation
  labels (--empty-vectors empties it first: a user whose cache holds nothing at all);
- later asks: --later rounds of one ask each, the server and caches warm.

Both codes share one cache folder of the bench (the built ONNX model linked from the user's), so
neither pays for a model build. Bytecode is written (PYTHONDONTWRITEBYTECODE dropped), as an
installed package has it. Printed: wall p50 of each, baseline/now ratios, correct answers, the load
average (`uptime`) before and after: on a shared machine the ratio is the figure to read.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO, environment, log, percentile, table  # noqa: E402

TARGETS = {"first": 3.0, "later": 1.5}  # issue 46: first answer in a new store, each later CLI ask (s)


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


class Codes:
    def __init__(self, baseline: Path, home: Path, cache: Path, port: int):
        self.dirs = {"now": REPO, "baseline": baseline}
        self.home, self.cache, self.port = home, cache, port

    def env(self, code: str) -> dict[str, str]:
        env = {**os.environ, "PYTHONPATH": str(self.dirs[code]), "KGTOOL_HOME": str(self.home),
               "KGTOOL_NEO4J_PORT": str(self.port), "KGTOOL_CACHE_DIR": str(self.cache),
               "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        env.setdefault("KGTOOL_RUNTIME_DIR", str(Path.home() / ".cache" / "kgtool" / "runtime"))
        for key in ("PYTHONDONTWRITEBYTECODE", "NEO4J_URI", "KGTOOL_WARMUP"):
            env.pop(key, None)
        return env

    def cli(self, code: str, *args: str, timeout: float = 900) -> tuple[float, subprocess.CompletedProcess]:
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "kgtool.cli", *args], env=self.env(code), capture_output=True,
                             text=True, timeout=timeout, cwd=self.dirs[code])
        return time.perf_counter() - t0, out

    def ask(self, code: str, question: str) -> tuple[float, dict]:
        wall, out = self.cli(code, "ask", question, "--agents", "offline", "--json")
        lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
        if out.returncode not in (0, 1) or not lines:
            raise SystemExit(f"{code}: ask failed ({out.returncode})\n{out.stderr[-3000:]}")
        return wall, json.loads(lines[-1])


def wait_for_warmup(home: Path, seen: int, timeout: float = 300) -> float | None:
    """Seconds until the warm-up log has a line more than `seen`; None when none came."""
    path, t0 = home / "logs" / "warmup.log", time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if path.is_file() and path.read_text().count("warm-up:") > seen:
            return time.perf_counter() - t0
        time.sleep(0.5)
    return None


def questions(path: Path) -> list[tuple[str, set[str]]]:
    from kgtool.core.text import normalize

    items = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [(i["question"], {normalize(a) for a in i["answers"]}) for i in items if i.get("answers")]


def run(args) -> int:
    from kgtool.core.text import normalize

    baseline = Path(args.baseline).resolve()
    if not (baseline / "kgtool" / "cli").is_dir():
        raise SystemExit(f"{baseline} holds no kgtool checkout (git archive 77633d9 | tar -x -C DIR)")
    qs = questions(args.questions)
    with tempfile.TemporaryDirectory(prefix="kgtool-cold-baseline-") as tmp:
        tmp = Path(tmp)
        cache = tmp / "cache"
        cache.mkdir()
        models = Path.home() / ".cache" / "kgtool" / "models"
        if models.is_dir():
            (cache / "models").symlink_to(models)
        codes = Codes(baseline, tmp / "home", cache, args.port)
        print(f"before: {uptime()}", flush=True)
        wall, out = codes.cli("now", "db", "start")
        log(f"db start {wall:.1f} s: {out.stdout.strip()[-200:]}")
        try:
            wall, out = codes.cli("now", "ingest", "facts", str(args.facts))
            log(f"ingest {wall:.1f} s (exit {out.returncode})")
            for code in ("now", "baseline"):  # untimed: bytecode written; the statements `now` warms noted
                for q, _ in qs[:3]:
                    codes.ask(code, q)
            walls = {(kind, code): [] for kind in ("first", "later") for code in ("now", "baseline")}
            right = {key: 0 for key in walls}
            warmups: list[float | None] = []
            for i in range(args.rounds):
                for code in (("now", "baseline") if i % 2 == 0 else ("baseline", "now")):
                    codes.cli(code, "db", "stop")
                    if args.no_history:  # a machine where nothing was asked: the shipped list is warmed
                        (cache / "warmup" / "statements.json").unlink(missing_ok=True)
                    seen = (codes.home / "logs" / "warmup.log").read_text().count("warm-up:") \
                        if (codes.home / "logs" / "warmup.log").is_file() else 0
                    codes.cli(code, "db", "start")
                    if code == "now":
                        warmups.append(wait_for_warmup(codes.home, seen))
                    if args.empty_vectors:
                        shutil.rmtree(cache / "vectors", ignore_errors=True)
                    q, answers = qs[(i * 2 + (code == "now")) % len(qs)]
                    wall, result = codes.ask(code, q)
                    walls[("first", code)].append(wall)
                    right[("first", code)] += normalize(result.get("answer") or "") in answers
                    log(f"round {i + 1} {code}: first ask {wall:.2f} s (latency {result['latency_ms']:.0f} ms, "
                        f"load {result['load_ms']:.0f} ms)" + (f", warm-up {warmups[-1]:.1f} s" if code == "now"
                                                               and warmups[-1] is not None else ""))
            for i in range(args.later):
                q, answers = qs[(i + 7) % len(qs)]
                for code in (("now", "baseline") if i % 2 == 0 else ("baseline", "now")):
                    wall, result = codes.ask(code, q)
                    walls[("later", code)].append(wall)
                    right[("later", code)] += normalize(result.get("answer") or "") in answers
                log(f"later {i + 1}: " + ", ".join(f"{c} {walls[('later', c)][-1]:.2f} s" for c in ("now", "baseline")))
        finally:
            codes.cli("now", "db", "stop")
    print()
    print(environment())
    print(f"after: {uptime()}")
    rows = [[kind, code, percentile(walls[(kind, code)], 50), min(walls[(kind, code)]), max(walls[(kind, code)]),
             f"{right[(kind, code)]}/{len(walls[(kind, code)])}"] for kind, code in walls]
    print(table(["ask", "code", "wall p50 s", "min s", "max s", "correct"], rows))
    done = [w for w in warmups if w is not None]
    print(f"warm-up after db start (now only, waited for before the first ask): p50 "
          f"{percentile(done, 50):.1f} s over {len(done)}/{len(warmups)} starts")
    for kind in ("first", "later"):
        now, base = (percentile(walls[(kind, c)], 50) for c in ("now", "baseline"))
        print(f"{kind} ask: baseline/now = {base / now:.2f}x (p50 {base:.2f} s -> {now:.2f} s); target "
              f"<= {TARGETS[kind]:.1f} s: {'met' if now <= TARGETS[kind] else 'not met'}", flush=True)
    return 0
