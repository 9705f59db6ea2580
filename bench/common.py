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
import json
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


# --------------------------------------------------------------------------- data
def mquake_questions(path: Path, *, first_only: bool = False) -> list[tuple[str, set[str]]]:
    """(question, accepted answers) for the MQuAKE cases in `path`: every question of a case
    (or only its first), each accepting the post-edit answer and its aliases, normalised."""
    from kgtool.core.text import normalize

    out = []
    for case in json.loads(path.read_text(encoding="utf-8")):
        answers = {normalize(a) for a in [case.get("new_answer"), *case.get("new_answer_alias", [])] if a}
        questions = case.get("questions", [])
        out.extend((q, answers) for q in (questions[:1] if first_only else questions))
    return out


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


def start_server(heap: str, pagecache: str, *, label: str = "bench", plugins: str | None = None) -> BenchServer:
    """Start a LocalServer in a fresh temporary home on a free port.

    The server is stopped and its home removed at exit; call `.stop()` to do
    it earlier (e.g. between graph sizes). `plugins` is KGTOOL_NEO4J_PLUGINS
    (Maven coordinates; Maven's local repository caches the jars after the first run).
    """
    from kgtool.graph.server import LocalServer, free_port

    home = Path(tempfile.mkdtemp(prefix=f"kgtool-{label}-"))
    runtime = Path(os.environ.get("KGTOOL_RUNTIME_DIR") or default_home() / "runtime")
    settings = Settings(home=home, neo4j_port=free_port(), runtime_dir=runtime, neo4j_heap=heap,
                        neo4j_pagecache=pagecache, neo4j_plugins=plugins)
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
def bench_graph(heap: str, pagecache: str, *, label: str = "bench", plugins: str | None = None) -> Iterator:
    """A connected KnowledgeGraph with the schema applied, on a throwaway server."""
    from kgtool.api import KnowledgeGraph

    handle = start_server(heap, pagecache, label=label, plugins=plugins)
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


# --------------------------------------------------------------------------- corpora

# APOC core for the server's Neo4j 5.26 (Maven Central), for peers that call APOC
APOC_CORE = "org.neo4j.procedure:apoc-core:5.26.0:core"

_ALIAS_FIELDS = ("subject_aliases", "object_aliases", "old_object_aliases")


def _suffix(text: str | None, tag: str) -> str | None:
    return None if text is None else f"{text}{tag}"


def _rename(text: str | None, names: list[tuple[str, str]]) -> str | None:
    """Put the copy's entity names into a sentence (longest name first, so parts do not clash)."""
    if text is None:
        return None
    for old, new in names:
        if old and old in text:
            text = text.replace(old, new)
    return text


def copy_edit(edit, k: int) -> dict:
    """Edit number k of the corpus as a JSONL object with its own ids and names."""
    tag = f" #{k}"
    pairs = sorted(
        {(n, n + tag) for n in (edit.subject, edit.object, edit.old_object) if n},
        key=lambda p: -len(p[0]),
    )
    row = {
        "id": f"{edit.id}#{k}",
        "case_id": _suffix(edit.case_id, f"#{k}"),
        "subject": edit.subject + tag,
        "relation": edit.relation,
        "relation_id": edit.relation_id,  # relation ids name the relation, not an entity: kept
        "object": edit.object + tag,
        "old_object": _suffix(edit.old_object, tag),
        "description": _rename(edit.description, pairs),
        "prompt": edit.prompt,  # a template with {} for the subject: already name-free
        "question": _rename(edit.question, pairs),
    }
    for name in _ALIAS_FIELDS:
        aliases = getattr(edit, name)
        if aliases:
            row[name] = [a + tag for a in aliases]
    return {key: value for key, value in row.items() if value is not None}


def build_corpus(source: Path, n_edits: int, out: Path) -> int:
    """Write n_edits distinct edits to `out` (JSONL); returns the number of copies used.

    The edits of `source` are repeated; copy k appends " #k" to every entity
    name and alias and to the edit and case ids, and drops the Wikidata Q-ids,
    so the graph really receives n_edits distinct edits about distinct entities.
    """
    from kgtool.ingest.readers import read_edits

    edits = read_edits(source).edits
    if not edits:
        raise SystemExit(f"{source}: no edits to repeat")
    written, k = 0, 0
    with out.open("w", encoding="utf-8") as fh:
        while written < n_edits:
            for edit in edits:
                if written >= n_edits:
                    break
                fh.write(json.dumps(copy_edit(edit, k), ensure_ascii=False) + "\n")
                written += 1
            k += 1
    return k


def head_of(corpus: Path, n: int, out: Path) -> Path:
    """The first n lines of a JSONL corpus (a warm-up file)."""
    with corpus.open("rb") as src, out.open("wb") as dst:
        for _, line in zip(range(n), src):
            dst.write(line)
    return out


# --------------------------------------------------------------------------- what a graph holds

# bench yardsticks, not part of the package: they count whatever any writer stored
COUNT_NODES = "MATCH (n) RETURN count(n) AS n, sum(size(keys(n))) AS props"
COUNT_RELS = "MATCH ()-[r]->() RETURN count(r) AS n, sum(size(keys(r))) AS props"


@dataclass
class Elements:
    nodes: int
    relationships: int
    properties: int

    @property
    def total(self) -> int:
        return self.nodes + self.relationships + self.properties


def count_elements(driver, database: str = "neo4j") -> Elements:
    """Nodes, relationships and properties (of both) stored in the database now."""
    nodes = driver.execute_query(COUNT_NODES, database_=database).records[0]
    rels = driver.execute_query(COUNT_RELS, database_=database).records[0]
    return Elements(int(nodes["n"]), int(rels["n"]), int(nodes["props"] or 0) + int(rels["props"] or 0))


def load_average() -> str:
    """The 1/5/15-minute load averages, printed beside every timing (the machine is shared)."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f}"


class CpuClock:
    """CPU seconds spent by the server's JVM and by this process: on a machine shared with
    other work, wall times swing with the load while CPU seconds mostly do not."""

    def __init__(self, kg):
        from kgtool.graph.server import LocalServer

        self.pid = LocalServer(kg.settings).pid()
        self.tick = os.sysconf("SC_CLK_TCK")

    def server(self) -> float:
        if self.pid is None:
            return float("nan")
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / self.tick  # utime + stime

    def measure(self, fn, *args):
        """fn(*args), and (server CPU s, client CPU s) it took."""
        s0, c0 = self.server(), time.process_time()
        out = fn(*args)
        return out, (self.server() - s0, time.process_time() - c0)
