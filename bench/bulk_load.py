"""Bulk load: `kgtool ingest edits FILE --bulk` against streaming ingest, edits/s.

    .venv/bin/python bench/bulk_load.py [--edits 1000000]
        [--stream-edits 20000] [--file FILE] [--batch-size 2000]

The corpus is ingest_throughput's: the edits of an MQuAKE file repeated to
--edits, every copy with its own ids and renamed entities (bench/common.py
build_corpus). Two throwaway servers, one after the other (never both up):

- streaming: the first --stream-edits edits of the corpus with
  `kg.ingest_edits(path, embed_relations=False)` into an empty graph;
- bulk: the whole corpus with `kg.ingest_edits(path, bulk=True,
  embed_relations=False)` into an empty store: read, extraction + EATR + rows
  (the same front half), the import files, server stop, neo4j-admin import,
  server start, schema, post-processing (conflicts, empty lists, full-text),
  each phase timed by kgtool itself.

Prints edits/s of the whole bulk command (all phases) and of streaming, their
ratio, the bulk phases, the graph's counts and the peak memory (VmHWM) of this
process during the bulk load alone: the high-water mark is reset through
/proc/self/clear_refs right before the call, so the corpus building and the
streaming run do not count; the corpus file's size is printed beside it.
Target: bulk >= 30,000 edits/s on 1M edits.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    _RUNNING,
    SHARED_DATA,
    bench_graph,
    build_corpus,
    environment,
    head_of,
    load_average,
    log,
    memory_for,
    start_server,
    table,
    verdict,
)

TARGET_EDITS_PER_S = 30_000


def _status_mb(field: str) -> float:
    """A memory figure of this process from /proc/self/status (VmRSS, VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise SystemExit(f"/proc/self/status has no {field}: this bench reads Linux's memory figures")


def _reset_peak() -> None:
    # "5" resets the peak resident set size (VmHWM) to the current one (Linux >= 4.0)
    Path("/proc/self/clear_refs").write_text("5")


def streaming(path: Path, n: int, batch_size: int) -> float:
    heap, pagecache = memory_for(n)
    with bench_graph(heap, pagecache, label="stream") as kg:
        log(f"streaming {n:,} edits ({load_average()})")
        t0 = time.perf_counter()
        summary = kg.ingest_edits(path, embed_relations=False, batch_size=batch_size)
        seconds = time.perf_counter() - t0
        log(f"streaming done in {seconds:.1f} s ({load_average()})")
    return summary.edits_loaded / seconds


def bulk(path: Path, n: int, batch_size: int):
    from kgtool.api import KnowledgeGraph

    heap, pagecache = memory_for(n)
    handle = start_server(heap, pagecache, label="bulk")
    log(f"Neo4j up on port {handle.settings.neo4j_port} in {handle.started_in:.1f} s")
    try:
        kg = KnowledgeGraph.connect(handle.settings)
        try:
            log(f"bulk loading {n:,} edits ({load_average()})")
            _reset_peak()
            rss_before = _status_mb("VmRSS")
            t0 = time.perf_counter()
            summary = kg.ingest_edits(path, bulk=True, embed_relations=False, batch_size=batch_size,
                                      phase=lambda name: log(f"bulk: {name} ({load_average()})"))
            seconds = time.perf_counter() - t0
            peak = _status_mb("VmHWM")
            log(f"bulk done in {seconds:.1f} s ({load_average()})")
            stats = kg.stats()
        finally:
            kg.close()
    finally:
        if handle in _RUNNING:
            _RUNNING.remove(handle)
        handle.stop()
    return summary, seconds, stats, (rss_before, peak)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=1_000_000, help="edits to bulk-load (default 1000000)")
    parser.add_argument("--stream-edits", type=int, default=20_000,
                        help="edits of the same corpus to stream, for the ratio (default 20000)")
    parser.add_argument("--file", type=Path, default=SHARED_DATA / "mquake-hard-dev.json",
                        help="MQuAKE file whose edits are repeated")
    parser.add_argument("--batch-size", type=int, default=2000, help="front-half batch size (default 2000)")
    args = parser.parse_args(argv)

    print(environment())
    with tempfile.TemporaryDirectory(prefix="kgtool-bulk-corpus-") as tmp:
        corpus = Path(tmp) / "edits.jsonl"
        t0 = time.perf_counter()
        copies = build_corpus(args.file, args.edits, corpus)
        log(f"corpus: {args.edits:,} edits ({copies} copies of {args.file.name}) in {time.perf_counter() - t0:.1f} s")
        part = head_of(corpus, min(args.stream_edits, args.edits), Path(tmp) / "slice.jsonl")

        corpus_mb = os.path.getsize(corpus) / 2**20
        stream_rate = streaming(part, min(args.stream_edits, args.edits), args.batch_size)
        summary, seconds, stats, (rss_before, peak) = bulk(corpus, args.edits, args.batch_size)

    rate = summary.edits_loaded / seconds
    print(f"\nbulk load of {summary.edits_loaded:,} edits: {seconds:.1f} s, {rate:,.0f} edits/s "
          f"(whole command) [{load_average()}]")
    print(f"streaming of {min(args.stream_edits, args.edits):,} edits: {stream_rate:,.0f} edits/s; "
          f"bulk/streaming = {rate / stream_rate:.1f}x")
    phases = summary.phases.seconds
    print("\n" + table(["phase", "seconds", "share"],
                       [(name, s, f"{100 * s / seconds:.0f}%") for name, s in phases.items()]
                       + [("(other: connections, checks)", seconds - sum(phases.values()), "")]))
    print("\n" + table(["label", "nodes"], sorted(stats["nodes"].items())))
    print("\n" + table(["type", "relationships"], sorted(stats["relationships"].items())))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak memory during the bulk load (VmHWM): {peak:,.0f} MB, {peak - rss_before:,.0f} MB above the "
          f"{rss_before:,.0f} MB before it; the corpus file: {corpus_mb:,.0f} MB")
    print(f"peak memory of this process over the whole bench: {peak_mb:,.0f} MB")
    print(f"target >= {TARGET_EDITS_PER_S:,} edits/s on 1M edits: {verdict(rate >= TARGET_EDITS_PER_S)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
