"""Shared pieces of the benchmarks: a throwaway Neo4j, timing and reporting.

Every benchmark starts its own LocalServer (the same code `kgtool db start`
runs) in a temporary home on a free port, so it never touches the user's
graph, and stops it and deletes the home when the script exits, also on
Ctrl-C or SIGTERM. The Neo4j jars come from the shared runtime directory, so
no network is needed once they have been resolved.
"""
from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("kgtool") is None:  # not installed: use the checkout this file is in
    sys.path.insert(0, str(REPO))

from kgtool.config import Settings, default_home  # noqa: E402

SHARED_DATA = REPO.parent / "shared" / "data"


# --------------------------------------------------------------------------- server


def memory_for(items: int) -> tuple[str, str]:
    """(heap, pagecache) for a graph of about `items` facts or edits.

    The page cache should hold the whole store, so hops never wait for the
    disk; the heap has to hold one write batch and the query plans. On the
    2-core / 24 GB bench machine 2g + 2g is plenty for a million facts.
    """
    if items <= 20_000:
        return "1g", "512m"
    if items <= 200_000:
        return "1g", "1g"
    return "2g", "2g"


@dataclass
class BenchServer:
    """A running throwaway server and the settings that reach it."""

    settings: Settings
    server: object  # kgtool.graph.server.LocalServer
    home: Path
    started_in: float

    def stop(self) -> None:
        try:
            self.server.stop()
        finally:
            shutil.rmtree(self.home, ignore_errors=True)


_RUNNING: list[BenchServer] = []


def _stop_all() -> None:
    while _RUNNING:
        _RUNNING.pop().stop()


def _on_signal(signum, _frame) -> None:
    _stop_all()
    raise SystemExit(128 + signum)


atexit.register(_stop_all)
signal.signal(signal.SIGTERM, _on_signal)


def start_server(heap: str, pagecache: str, *, label: str = "bench") -> BenchServer:
    """Start a LocalServer in a fresh temporary home on a free port.

    The server is stopped and its home removed at exit; call `.stop()` to do
    it earlier (e.g. between graph sizes).
    """
    from kgtool.graph.server import LocalServer, free_port

    home = Path(tempfile.mkdtemp(prefix=f"kgtool-{label}-"))
    runtime = Path(os.environ.get("KGTOOL_RUNTIME_DIR") or default_home() / "runtime")
    settings = Settings(home=home, neo4j_port=free_port(), runtime_dir=runtime, neo4j_heap=heap,
                        neo4j_pagecache=pagecache)
    server = LocalServer(settings)
    t0 = time.perf_counter()
    handle = BenchServer(settings, server, home, 0.0)
    _RUNNING.append(handle)
    try:
        server.start(timeout=300)
    except BaseException:
        _RUNNING.remove(handle)
        handle.stop()
        raise
    handle.started_in = time.perf_counter() - t0
    return handle


@contextmanager
def bench_graph(heap: str, pagecache: str, *, label: str = "bench") -> Iterator:
    """A connected KnowledgeGraph with the schema applied, on a throwaway server."""
    from kgtool.api import KnowledgeGraph

    handle = start_server(heap, pagecache, label=label)
    log(f"Neo4j up on port {handle.settings.neo4j_port} (heap {heap}, page cache {pagecache}) "
        f"in {handle.started_in:.1f} s")
    kg = KnowledgeGraph.connect(handle.settings)
    try:
        kg.init_schema()
        yield kg
    finally:
        kg.close()
        if handle in _RUNNING:
            _RUNNING.remove(handle)
        handle.stop()


# --------------------------------------------------------------------------- timing


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), linear interpolation between ranks."""
    if not values:
        return float("nan")
    data = sorted(values)
    if len(data) == 1:
        return data[0]
    pos = (len(data) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


@dataclass
class Latency:
    samples_ms: list[float]

    @property
    def p50(self) -> float:
        return percentile(self.samples_ms, 50)

    @property
    def p95(self) -> float:
        return percentile(self.samples_ms, 95)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.samples_ms) if self.samples_ms else float("nan")


def time_each(items: Sequence, fn: Callable) -> Latency:
    """Call fn(item) for each item; the wall time of each call in milliseconds."""
    samples = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        samples.append((time.perf_counter() - t0) * 1000.0)
    return Latency(samples)


# --------------------------------------------------------------------------- reporting


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def environment() -> str:
    """One line naming what the figures depend on: cores, Python, driver (and its Rust codec)."""
    import importlib.metadata as md
    import platform

    def version(dist: str) -> str:
        try:
            return md.version(dist)
        except md.PackageNotFoundError:
            return "absent"

    return (f"{os.cpu_count()} cores, Python {platform.python_version()}, neo4j driver {version('neo4j')} "
            f"(neo4j-rust-ext {version('neo4j-rust-ext')}), Neo4j {Settings().neo4j_version} Community")


def verdict(ok: bool) -> str:
    return "MET" if ok else "MISSED"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain fixed-width table (benchmarks print to logs and terminals alike)."""
    cells = [[str(h) for h in headers]] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for n, row in enumerate(cells):
        lines.append("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _cell(value: object) -> str:
    if isinstance(value, float):
        if value != value:  # NaN
            return "-"
        return f"{value:,.2f}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
