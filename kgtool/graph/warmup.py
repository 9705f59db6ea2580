"""Warming Neo4j's query plan cache in the background, so a new store's first answer does not plan.

A server just started (or a graph just ingested, which changes the statistics plans are made
from) plans every statement an answer sends the first time it meets it: on this 2-core machine a
first answer's statements cost seconds of planning (one write of the trace alone ~1-1.4 s), later
answers a few ms each. Plans are cached per statement text and parameter types, so:

- `record_statements()` (called by `kgtool ask`) has this process note each statement it runs and
  the shape of its parameters (each string replaced by one of its length, each number by a zero:
  no question or name is kept), saved at exit to <shared cache>/warmup/statements.json;
- a machine where nothing was asked yet has no such list: the package ships one
  (kgtool/graph/warmup_statements.json, the statements of every method answering the bundled
  sample's questions; rewritten by bench/warmup_default.py), so even a first ask is warmed;
- `start_background(settings)` (after `kgtool db start` and after an ingest) starts
  `python -m kgtool.graph.warmup` detached: it runs each noted statement with parameters of those
  shapes (strings of letters) in a transaction it rolls back (planned and run, nothing kept), and
  logs to <home>/logs/warmup.log. No command waits for it.

KGTOOL_WARMUP=0 turns both off (the test suite does, tests/conftest.py).
"""
from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

MAX_STATEMENTS = 300  # the most recently noted statement shapes kept (an answer sends a few dozen)

_seen: dict[str, None] = {}
_lock = threading.Lock()
_recording = [False]


def enabled() -> bool:
    return os.environ.get("KGTOOL_WARMUP", "1").strip().lower() not in ("0", "false", "no", "off")


# shipped with the package: what every method's answer sends, for a machine that has noted nothing yet
DEFAULT_STATEMENTS = Path(__file__).with_name("warmup_statements.json")


def statements_file(shared_cache: Path | None = None) -> Path:
    from kgtool.config import default_cache

    return Path(shared_cache or default_cache()) / "warmup" / "statements.json"


def statements_to_warm(shared_cache: Path | None = None) -> Path:
    """The list this machine's asks noted, else the shipped one."""
    path = statements_file(shared_cache)
    return path if path.is_file() else DEFAULT_STATEMENTS


def shape(value):
    """The parameter with its types and sizes kept and its content dropped."""
    return _map_leaves(value, _shape_leaf)


def _shape_leaf(value):
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return "~" * len(value)
    if isinstance(value, int):
        return 0
    if isinstance(value, float):
        return 0.0
    return None


def _map_leaves(value, leaf):
    """`value` with every leaf (not a dict, list or tuple) replaced by leaf(it); tuples become lists."""
    if isinstance(value, dict):
        return {str(k): _map_leaves(v, leaf) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_map_leaves(v, leaf) for v in value]
    return leaf(value)


def record_statements(shared_cache: Path | None = None) -> None:
    """Note from now on the statements this process runs (kgtool.graph.db calls `note`), saved at exit."""
    if not enabled() or _recording[0]:
        return
    _recording[0] = True
    atexit.register(_save, statements_file(shared_cache))


def note(name: str, params: dict) -> None:
    if not _recording[0]:
        return
    try:
        key = json.dumps([name, shape(params)], sort_keys=True)
    except (TypeError, ValueError):
        return
    with _lock:
        _seen[key] = None


def load(path: Path) -> list[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [s for s in data if isinstance(s, str)] if isinstance(data, list) else []


def _save(path: Path) -> None:
    with _lock:
        mine = list(_seen)
    if not mine:
        return
    known = load(path)
    if set(mine) <= set(known):
        return  # nothing new: no write
    kept = list(dict.fromkeys([*mine, *known]))[:MAX_STATEMENTS]
    try:
        from kgtool.core.files import write_atomic

        data = json.dumps(kept).encode("utf-8")
        write_atomic(path, lambda fh: fh.write(data), size_hint=len(data), what="the warm-up statement list")
    except Exception:  # noqa: BLE001 - a warm-up list not written costs the next first answer time, no more
        pass


def run(db, statements: list[str]) -> tuple[int, int]:
    """Plan (and run, rolled back) each noted statement; (how many ran, how many failed)."""
    from kgtool.graph import queries

    ran = failed = 0
    with db.session() as session:
        for item in statements:
            try:
                name, params = json.loads(item)
                text = queries.text(name)
            except Exception:  # noqa: BLE001 - a statement renamed or removed since it was noted
                failed += 1
                continue
            tx = session.begin_transaction()
            try:
                tx.run(text, _runnable(params)).consume()
                ran += 1
            except Exception:  # noqa: BLE001 - one statement's failure is its own
                failed += 1
            finally:
                tx.rollback()
    return ran, failed


def _runnable(value):
    """A noted shape with its strings made letters: a full-text search reads "~" as Lucene's fuzzy operator and
    fails to parse (everything runs in a transaction that is rolled back, so what a letter matches is kept by
    nothing)."""
    return _map_leaves(value, lambda v: "q" * len(v) if isinstance(v, str) else v)


def start_background(settings) -> subprocess.Popen | None:
    """Start the warm-up detached from this command (which does not wait for it); None when off."""
    if not enabled():
        return None
    path = statements_to_warm(settings.shared_cache)
    if not path.is_file():
        return None
    logs = Path(settings.home) / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "KGTOOL_HOME": str(settings.home), "KGTOOL_NEO4J_PORT": str(settings.neo4j_port)}
    with open(logs / "warmup.log", "ab") as log:
        return subprocess.Popen([sys.executable, "-m", "kgtool.graph.warmup", str(path)], env=env,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)


def main(argv: list[str] | None = None) -> int:
    from kgtool.config import Settings
    from kgtool.graph.db import Database

    argv = sys.argv[1:] if argv is None else argv
    statements = load(Path(argv[0])) if argv else load(statements_to_warm())
    t0 = time.perf_counter()
    settings = Settings.load()
    with Database.connect(settings, start=False) as db:
        ran, failed = run(db, statements)
    print(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} warm-up: {ran} statements planned, {failed} failed, "
          f"in {time.perf_counter() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
