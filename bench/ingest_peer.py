"""The peer comparison: kgtool's edit ingest against neo4j-graphrag's Neo4jWriter, same triples, same server.

    .venv/bin/python bench/ingest_peer.py [--edits 50000] [--file FILE] [--batch-size 2000] [--rounds 3]

Needs the `bench` extra (`pip install -e '.[bench]'`: neo4j-graphrag). The
corpus is bench/common.py's build_corpus (the edits of --file, default the
shared MQuAKE-hard dev file, repeated with their own ids and names to
--edits). One throwaway server with APOC core loaded through kgtool's plugin
support (KGTOOL_NEO4J_PLUGINS; the writer merges relationships with
`apoc.merge.relationship`) and kgtool's schema applied. After a warm-up of
both and one untimed full-size kgtool ingest (the first write of that size
grows the store files), interleaved rounds kgtool, peer, kgtool, peer, ...,
each into an empty graph:

- kgtool: `kg.ingest_edits(path, extractor="anchor", embed_relations=False)`:
  entities, relations, reified facts with evidence, edits with their EATR
  audit, supersession of the pre-edit fact, passages, provenance, conflict
  verdicts;
- peer: the same JSONL read line by line into a `Neo4jGraph` of the same
  triples, the edit's (subject, relation, object) and, where it names one,
  the pre-edit (subject, relation, old object): one `Thing {name}` node per
  distinct name and one relationship per triple whose type is the relation's
  label in upper case (the shape neo4j-graphrag's KG builder writes), then
  `Neo4jWriter(batch_size=--batch-size).run(graph)`: one transaction per
  batch of nodes, then of relationships.

Printed per side: edits/s, elements written (nodes + relationships +
properties, counted from the database after the side's load) and elements/s,
and the ratios. Target (issue 15): one command, both sides' edits/s and elements/s.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402
    APOC_CORE, SHARED_DATA, bench_graph, build_corpus, count_elements, environment, head_of, load_average, log,
    memory_for, table,
)

WARMUP_EDITS = 5_000


def _graphrag():
    """neo4j-graphrag's writer and types, imported only here: it is a bench dependency, not kgtool's."""
    try:
        from neo4j_graphrag.components.kg_writer import Neo4jWriter
        from neo4j_graphrag.components.types import Neo4jGraph, Neo4jNode, Neo4jRelationship
    except ImportError as exc:
        raise SystemExit(
            f"bench/ingest_peer.py needs neo4j-graphrag ({exc.name or exc} is missing). "
            "Install the bench extra: .venv/bin/pip install -e '.[bench]'"
        ) from exc
    return Neo4jWriter, Neo4jGraph, Neo4jNode, Neo4jRelationship


def _rel_type(label: str) -> str:
    return re.sub(r"[^A-Z0-9_]", "_", label.strip().upper()) or "RELATED_TO"


def peer_graph(path: Path):
    """The corpus's triples as a neo4j-graphrag Neo4jGraph."""
    _, Neo4jGraph, Neo4jNode, Neo4jRelationship = _graphrag()
    nodes: dict[str, object] = {}
    rels = []

    def node(name: str) -> str:
        if name not in nodes:
            nodes[name] = Neo4jNode(id=name, label="Thing", properties={"name": name})
        return name

    with path.open("rb") as fh:
        for line in fh:
            if not line.strip():
                continue
            edit = json.loads(line)
            kind = _rel_type(edit["relation"])
            subject = node(edit["subject"])
            rels.append(Neo4jRelationship(start_node_id=subject, end_node_id=node(edit["object"]), type=kind))
            if edit.get("old_object"):
                rels.append(Neo4jRelationship(start_node_id=subject, end_node_id=node(edit["old_object"]),
                                              type=kind))
    return Neo4jGraph(nodes=list(nodes.values()), relationships=rels)


def peer_ingest(kg, path: Path, batch_size: int) -> tuple[float, int]:
    """Read, build the graph, write it with Neo4jWriter; (seconds, triples)."""
    Neo4jWriter = _graphrag()[0]
    t0 = time.perf_counter()
    graph = peer_graph(path)
    writer = Neo4jWriter(kg.db.driver, neo4j_database=kg.settings.neo4j_database, batch_size=batch_size)
    result = asyncio.run(writer.run(graph))
    seconds = time.perf_counter() - t0
    if result.status != "SUCCESS":
        raise SystemExit(f"Neo4jWriter failed: {result.metadata}")
    return seconds, len(graph.relationships)


def kg_ingest(kg, path: Path, batch_size: int) -> float:
    t0 = time.perf_counter()
    summary = kg.ingest_edits(path, extractor="anchor", embed_relations=False, batch_size=batch_size)
    seconds = time.perf_counter() - t0
    if summary.skipped:
        log(f"kgtool skipped {len(summary.skipped)} records, e.g. {summary.skipped[0]}")
    return seconds


def empty(kg) -> None:
    """Delete the graph and wait until kgtool's full-text indexes have dropped it too, so the
    next timed writer does not pay for the previous one's index work."""
    kg.clear()
    kg.db.run_autocommit("admin/await_fulltext")


def _median(values: list[float]) -> float:
    data = sorted(values)
    mid = len(data) // 2
    return data[mid] if len(data) % 2 else (data[mid - 1] + data[mid]) / 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=50_000, help="distinct edits (default 50000)")
    parser.add_argument("--file", type=Path, default=SHARED_DATA / "mquake-hard-dev.json",
                        help="MQuAKE JSON (or kgtool JSONL) whose edits are repeated")
    parser.add_argument("--batch-size", type=int, default=2000, help="both writers' batch size (default 2000)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per side (default 3)")
    parser.add_argument("--keep-jsonl", type=Path, default=None, help="also keep the generated JSONL here")
    args = parser.parse_args(argv)
    _graphrag()  # fail before a server is started

    workdir = Path(tempfile.mkdtemp(prefix="kgtool-bench-peer-"))
    try:
        return _run(args, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _run(args, workdir: Path) -> int:
    corpus = args.keep_jsonl or workdir / "edits.jsonl"
    copies = build_corpus(args.file, args.edits, corpus)
    warm = head_of(corpus, min(WARMUP_EDITS, args.edits), workdir / "warmup.jsonl")
    log(f"{args.edits:,} distinct edits ({copies} copies of {args.file.name}) in {corpus}")

    heap, pagecache = memory_for(args.edits)
    times: dict[str, list[float]] = {"kgtool": [], "peer": []}
    elems: dict[str, object] = {}
    triples = 0
    with bench_graph(heap, pagecache, label="peer", plugins=APOC_CORE) as kg:
        for _ in range(2):
            kg_ingest(kg, warm, args.batch_size)
            empty(kg)
            peer_ingest(kg, warm, args.batch_size)
            empty(kg)
        # the first write of this size grows the store files (about twice the time of later
        # runs, which reuse the freed space): untimed, so both timed writers reuse it
        kg_ingest(kg, corpus, args.batch_size)
        empty(kg)
        for r in range(args.rounds):
            times["kgtool"].append(kg_ingest(kg, corpus, args.batch_size))
            elems["kgtool"] = count_elements(kg.db.driver, kg.settings.neo4j_database)
            log(f"round {r + 1}: kgtool {args.edits / times['kgtool'][-1]:,.0f} edits/s ({load_average()})")
            empty(kg)
            seconds, triples = peer_ingest(kg, corpus, args.batch_size)
            times["peer"].append(seconds)
            elems["peer"] = count_elements(kg.db.driver, kg.settings.neo4j_database)
            log(f"round {r + 1}: peer {args.edits / seconds:,.0f} edits/s ({load_average()})")
            empty(kg)
        load_after = load_average()

    n = args.edits
    print(f"\n{environment()}; APOC core {APOC_CORE.split(':')[2]} via KGTOOL_NEO4J_PLUGINS")
    print(f"{load_after} (at the end of the measurements)")
    print(f"\nPeer ingest: {n:,} distinct edits ({triples:,} triples for the peer), batch size {args.batch_size}, "
          f"{args.rounds} interleaved rounds, medians")
    rows = []
    for side in ("kgtool", "peer"):
        s, e = _median(times[side]), elems[side]
        rows.append((side, n / s, e.nodes, e.relationships, e.properties, e.total, e.total / s, s,
                     " / ".join(f"{t:.1f}" for t in times[side])))
    print(table(["side", "edits/s", "nodes", "rels", "props", "elements", "elements/s", "s (median)",
                 "s per round"], rows))
    kg_s, peer_s = _median(times["kgtool"]), _median(times["peer"])
    ke, pe = elems["kgtool"], elems["peer"]
    print(f"\npeer/kgtool edits/s: {kg_s / peer_s:.2f}x; kgtool/peer elements written: {ke.total / pe.total:.1f}x; "
          f"kgtool/peer elements/s: {(ke.total / kg_s) / (pe.total / peer_s):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
