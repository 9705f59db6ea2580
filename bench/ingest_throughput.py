"""Ingestion throughput: kgtool's streaming edit ingest against a same-shape CREATE floor.

    .venv/bin/python bench/ingest_throughput.py [--edits 50000] [--file FILE]
        [--batch-sizes 2000] [--rounds 3] [--profile] [--keep-jsonl PATH]

The edits of an MQuAKE file (default: the shared MQuAKE-hard dev file) are
repeated until there are --edits of them (bench/common.py build_corpus: every
copy gets its own ids and entity names), written to a temporary JSONL file in
kgtool's format.

Measured on one throwaway server, each run into an empty graph with the
schema applied, after a warm-up of both, interleaved (floor, kgtool, floor,
kgtool, ... for --rounds):

- kgtool: `kg.ingest_edits(path, extractor="anchor", embed_relations=False)`
  (read, anchor extraction, EATR, batched MERGE writes, conflict flags and
  verdicts, fact status), timed end to end;
- floor: the SAME graph written with plain `UNWIND $rows ... CREATE`
  statements, one transaction per batch of the same size, sent back to back
  as kgtool sends its merges (neither waits for a statement before packing
  and sending the next). Its rows are
  kgtool's own: the GraphRows that kgtool's pipeline hands to
  `load.write_rows` are captured once (an ingest whose writes are skipped;
  its time is reported as kgtool's client-side preparation), and each entity,
  relation, fact, passage and source is created in the first batch that names
  it, with its final properties (aliases and phrases of all batches, the
  status kgtool derives). No MERGE and no lookups beyond the MATCH by id
  (through the same uniqueness constraints) that CREATE of a relationship to
  an earlier node needs. Relationships kgtool derives from conflicts between
  edits (CONFLICTS_WITH, OVERRIDES) are not written by the floor; the element
  counts of both graphs are printed side by side so any difference shows.
  Both times end when the full-text indexes have caught up with the writes
  (kgtool's ingest waits for them before it returns; the floor does the
  same), and before each timed run the graph is emptied and the indexes have
  dropped it, so no writer pays for the previous one's index work.

Beside the wall times, the CPU seconds of the server's JVM and of this
process are taken over each timed run and compared too: on a machine shared
with other work the wall times swing with the load, the CPU seconds much less.
Also printed: how long each kgtool run took to begin its first batch write
(a JSONL file is streamed, so that is not the time to read all of it).

Then kgtool's ingest runs again on the loaded graph, and the node and
relationship counts must not change (idempotence). --profile also replays
the captured batches through kgtool's own statements one at a time
(`load.write_batch`) and prints the server time of each.

Target (issue 15): streaming ingest within 1.5x of the floor of the same run.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402
    CpuClock,
    SHARED_DATA, bench_graph, build_corpus, count_elements, environment, head_of, load_average, log, memory_for,
    table, verdict,
)

TARGET_RATIO = 1.5
WARMUP_EDITS = 5_000

# The floor lives here, not in kgtool/cypher: it is the yardstick, not part of the package.
FLOOR = {
    "entities": "UNWIND $rows AS row CREATE (e:Entity) SET e = row",
    "relations": "UNWIND $rows AS row CREATE (r:Relation) SET r = row",
    "facts": ("UNWIND $rows AS row MATCH (h:Entity {id: row.head_id}) MATCH (t:Entity {id: row.tail_id}) "
              "CREATE (h)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t) SET f = row"),
    "edits": ("UNWIND $rows AS row CREATE (ed:Edit) SET ed = row.props "
              "WITH ed, row UNWIND row.fact_ids AS fid MATCH (f:Fact {id: fid}) CREATE (ed)-[:ASSERTS]->(f)"),
    "supersedes": ("UNWIND $rows AS row MATCH (ed:Edit {id: row.edit_id}) MATCH (f:Fact {id: row.fact_id}) "
                   "CREATE (ed)-[:SUPERSEDES]->(f)"),
    "passages": ("UNWIND $rows AS row CREATE (p:Passage) SET p = row.props "
                 "WITH p, row UNWIND row.fact_ids AS fid MATCH (f:Fact {id: fid}) CREATE (p)-[:SUPPORTS]->(f)"),
    "sources": "UNWIND $rows AS row CREATE (s:Source) SET s = row",
    "states": ("UNWIND $rows AS row MATCH (s:Source {id: row.source_id}) MATCH (f:Fact {id: row.fact_id}) "
               "CREATE (s)-[:STATES {evidence: row.evidence}]->(f)"),
}


# --------------------------------------------------------------------------- kgtool's rows


@contextmanager
def _writes_skipped(batches: list):
    """kgtool's pipeline with load.write_rows replaced by a recorder of the rows it is given."""
    from kgtool.ingest import load

    real = load.write_rows

    def record(db, rows, steps=None):
        batches.append(rows)
        return load.WriteCounts()

    load.write_rows = record
    try:
        yield
    finally:
        load.write_rows = real


def capture_rows(kg, path: Path, batch_size: int) -> tuple[list, float]:
    """kgtool's GraphRows for every transaction of an ingest of `path`, and the seconds it took
    to make them (reading, extraction, EATR and row building: kgtool's client-side work)."""
    batches: list = []
    t0 = time.perf_counter()
    with _writes_skipped(batches):
        kg.ingest_edits(path, extractor="anchor", embed_relations=False, batch_size=batch_size)
    return batches, time.perf_counter() - t0


def floor_plan(batches: list) -> list[dict[str, list[dict]]]:
    """Per transaction, the CREATE rows of what that batch writes first, with final properties.

    Mirrors what kgtool's MERGE statements leave behind (cypher/ingest/): an
    entity's aliases and a relation's phrases accumulate over batches, a fact
    first stated as base knowledge and later asserted by an edit becomes an
    edit fact with the edit's evidence, a fact only superseded is
    'superseded', a source states a fact with the first evidence it gave.
    """
    aliases: dict[str, list[str]] = defaultdict(list)
    phrases: dict[str, list[str]] = defaultdict(list)
    fact_final: dict[str, dict] = {}
    asserted: set[str] = set()
    superseded: set[str] = set()
    for rows in batches:
        for eid, row in rows.entities.items():
            for a in row["aliases"]:
                if a not in aliases[eid] and a != row["name"]:
                    aliases[eid].append(a)
        for key, row in rows.relations.items():
            for ph in row["phrases"]:
                if ph not in phrases[key]:
                    phrases[key].append(ph)
        for fid, row in rows.facts.items():
            final = fact_final.get(fid)
            if final is None:
                fact_final[fid] = dict(row)
            elif row["source"] == "edit" and final["source"] == "base":
                final["source"], final["evidence"] = "edit", row["evidence"]
        for edit in rows.edits:
            asserted.update(edit["fact_ids"])
        superseded.update(s["fact_id"] for s in rows.supersedes)

    seen: dict[str, set] = defaultdict(set)
    plan = []
    for rows in batches:
        step: dict[str, list[dict]] = defaultdict(list)
        for eid, row in rows.entities.items():
            if eid not in seen["entity"]:
                seen["entity"].add(eid)
                step["entities"].append({"id": eid, "name": row["name"], "norm": row["norm"], "qid": row["qid"],
                                         "aliases": aliases[eid], "alias_text": " | ".join(aliases[eid])})
        for key, row in rows.relations.items():
            if key not in seen["relation"]:
                seen["relation"].add(key)
                step["relations"].append({"key": key, "label": row["label"], "relation_id": row["relation_id"],
                                          "phrases": phrases[key]})
        for fid in rows.facts:
            if fid not in seen["fact"]:
                seen["fact"].add(fid)
                status = "superseded" if fid in superseded and fid not in asserted else "active"
                step["facts"].append({**fact_final[fid], "status": status})
        order = {o["id"]: o for o in rows.edit_order}
        for edit in rows.edits:
            if edit["id"] not in seen["edit"]:
                seen["edit"].add(edit["id"])
                stamp = order.get(edit["id"], {})
                props = {**edit["props"], "id": edit["id"], "status": "active",
                         "ingested_at": stamp.get("ingested_at"), "position": stamp.get("position")}
                step["edits"].append({"props": props, "fact_ids": edit["fact_ids"]})
        for link in rows.supersedes:
            pair = (link["edit_id"], link["fact_id"])
            if pair not in seen["supersedes"]:
                seen["supersedes"].add(pair)
                step["supersedes"].append(link)
        for pid, row in rows.passages.items():
            if pid not in seen["passage"]:
                seen["passage"].add(pid)
                step["passages"].append({"props": {"id": pid, "title": row["title"], "text": row["text"]},
                                         "fact_ids": list(dict.fromkeys(row["fact_ids"]))})
        for source in rows.source_rows():
            if source["id"] not in seen["source"]:
                seen["source"].add(source["id"])
                step["sources"].append({"id": source["id"], **source["props"]})
            for stated in source["facts"]:
                pair = (source["id"], stated["fact_id"])
                if pair not in seen["states"]:
                    seen["states"].add(pair)
                    step["states"].append({"source_id": source["id"], **stated})
        plan.append(dict(step))
    return plan


# --------------------------------------------------------------------------- the two writers


def floor_ingest(kg, plan: list[dict[str, list[dict]]]) -> float:
    """Write the plan, one transaction per batch, statements in kgtool's order; seconds taken.

    The statements of a batch are sent back to back without waiting for each
    (their results are read at the commit), as kgtool sends its merges: the
    server runs one while the client packs the next. Like kgtool's ingest, it
    ends when the full-text indexes have caught up with what it wrote: the
    same graph includes the same indexes.
    """
    order = ("entities", "relations", "facts", "edits", "supersedes", "passages", "sources", "states")
    t0 = time.perf_counter()
    with kg.db.session() as session:
        for step in plan:
            def work(tx, step=step):
                for name in order:
                    if step.get(name):
                        tx.run(FLOOR[name], rows=step[name])
            session.execute_write(work)
    kg.db.run_autocommit("admin/await_fulltext")
    return time.perf_counter() - t0


def empty(kg) -> None:
    """Delete the graph and wait until the full-text indexes have dropped it too, so the
    next timed writer does not pay for the previous one's index work."""
    kg.clear()
    kg.db.run_autocommit("admin/await_fulltext")


FIRST_WRITE: list[float] = []  # per timed kgtool run: seconds from its start to its first batch write


def kg_ingest(kg, path: Path, batch_size: int):
    from kgtool.ingest import load

    real, first = load.write_rows, []

    def noted(db, rows, steps=None):
        if not first:
            first.append(time.perf_counter())
        return real(db, rows, steps)

    load.write_rows = noted
    t0 = time.perf_counter()
    try:
        summary = kg.ingest_edits(path, extractor="anchor", embed_relations=False, batch_size=batch_size)
    finally:
        load.write_rows = real
    seconds = time.perf_counter() - t0
    FIRST_WRITE.append(first[0] - t0 if first else float("nan"))
    return seconds, summary


def profile_statements(kg, batches: list) -> dict[str, float]:
    """Seconds per kgtool statement over all batches, each batch in one transaction as usual
    (`load.write_batch`, the loader's own sequence, with a runner that times each statement)."""
    from kgtool.ingest.load import merge_steps, write_batch

    spent: dict[str, float] = defaultdict(float)
    for rows in batches:
        def work(run, rows=rows):
            def timed(name, params, rows=True):
                t0 = time.perf_counter()
                out = run(name, params)  # waited for even when its rows are not needed, to time it alone
                spent[name] += time.perf_counter() - t0
                return out if rows else None
            write_batch(timed, rows, merge_steps(rows))
        t0 = time.perf_counter()
        kg.db.write_transaction(work)
        spent["(whole transactions)"] += time.perf_counter() - t0
    return _with_commit_share(spent)


def profile_floor(kg, plan) -> dict[str, float]:
    spent: dict[str, float] = defaultdict(float)
    with kg.db.session() as session:
        for step in plan:
            def work(tx, step=step):
                for name, rows in step.items():
                    t0 = time.perf_counter()
                    tx.run(FLOOR[name], rows=rows).consume()
                    spent[name] += time.perf_counter() - t0
            t0 = time.perf_counter()
            session.execute_write(work)
            spent["(whole transactions)"] += time.perf_counter() - t0
    return _with_commit_share(spent)


def _with_commit_share(spent: dict[str, float]) -> dict[str, float]:
    """The statement times plus what the transactions spent outside them (mostly the commit)."""
    spent["(commit and the rest)"] = spent["(whole transactions)"] - sum(
        v for k, v in spent.items() if not k.startswith("("))
    return dict(spent)


def shape(kg) -> dict[str, int]:
    stats = kg.stats()
    flat = {f"(:{k})": v for k, v in stats["nodes"].items()}
    flat.update({f"[:{k}]": v for k, v in stats["relationships"].items()})
    return flat


def elements(kg):
    return count_elements(kg.db.driver, kg.settings.neo4j_database)


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=50_000, help="distinct edits to ingest (default 50000)")
    parser.add_argument("--file", type=Path, default=SHARED_DATA / "mquake-hard-dev.json",
                        help="MQuAKE JSON (or kgtool JSONL) whose edits are repeated")
    parser.add_argument("--batch-sizes", default="2000",
                        help="comma-separated batch sizes to measure, e.g. 1000,2000,5000 (default 2000)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved floor/kgtool rounds (default 3)")
    parser.add_argument("--profile", action="store_true", help="also time each statement of both writers")
    parser.add_argument("--keep-jsonl", type=Path, default=None, help="also keep the generated JSONL here")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.batch_sizes.split(",") if s.strip()]

    workdir = Path(tempfile.mkdtemp(prefix="kgtool-bench-ingest-"))
    try:
        return _run(args, sizes, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _median(values: list[float]) -> float:
    data = sorted(values)
    mid = len(data) // 2
    return data[mid] if len(data) % 2 else (data[mid - 1] + data[mid]) / 2


def _run(args, sizes: list[int], workdir: Path) -> int:
    corpus = args.keep_jsonl or workdir / "edits.jsonl"
    copies = build_corpus(args.file, args.edits, corpus)
    warm = head_of(corpus, min(WARMUP_EDITS, args.edits), workdir / "warmup.jsonl")
    log(f"{args.edits:,} distinct edits ({copies} copies of {args.file.name}) in {corpus}")

    heap, pagecache = memory_for(args.edits)
    results = []
    with bench_graph(heap, pagecache, label="ingest") as kg:
        clock = CpuClock(kg)
        warm_plan = floor_plan(capture_rows(kg, warm, sizes[0])[0])
        for _ in range(2):  # JIT, query plans, driver: both writers
            floor_ingest(kg, warm_plan)
            empty(kg)
            kg_ingest(kg, warm, sizes[0])
            empty(kg)

        for size in sizes:
            batches, prep_s = capture_rows(kg, corpus, size)
            plan = floor_plan(batches)
            log(f"batch {size}: kgtool's rows captured in {prep_s:.1f} s ({len(batches)} transactions)")
            if size == sizes[0]:
                # the first write of this size grows the store files (about twice the time of
                # later runs, which reuse the freed space): untimed, so both timed writers reuse it
                floor_ingest(kg, plan)
                empty(kg)
            floor_times, kg_times, summary = [], [], None
            floor_cpu, kg_cpu, kg_first = [], [], []
            floor_shape = floor_elems = kg_shape = kg_elems = None
            for r in range(args.rounds):
                empty(kg)
                seconds, cpu = clock.measure(floor_ingest, kg, plan)
                floor_times.append(seconds)
                floor_cpu.append(cpu)
                floor_shape, floor_elems = shape(kg), elements(kg)
                log(f"batch {size} round {r + 1}: floor {args.edits / floor_times[-1]:,.0f} edits/s "
                    f"({load_average()})")
                empty(kg)
                (seconds, summary), cpu = clock.measure(kg_ingest, kg, corpus, size)
                kg_times.append(seconds)
                kg_cpu.append(cpu)
                kg_first.append(FIRST_WRITE[-1])
                kg_shape, kg_elems = shape(kg), elements(kg)
                log(f"batch {size} round {r + 1}: kgtool {args.edits / seconds:,.0f} edits/s "
                    f"({summary.edits_loaded:,} edits loaded, {summary.kept:,} candidates kept by EATR)")
            again_s, _ = kg_ingest(kg, corpus, size)
            after = shape(kg)
            profile = None
            if args.profile:
                empty(kg)
                kg_prof = profile_statements(kg, batches)
                empty(kg)
                floor_prof = profile_floor(kg, plan)
                profile = (kg_prof, floor_prof)
            empty(kg)
            results.append({
                "size": size, "floor": floor_times, "kgtool": kg_times, "again": again_s, "prep": prep_s,
                "floor_cpu": floor_cpu, "kg_cpu": kg_cpu, "kg_first": kg_first,
                "summary": summary, "kg_shape": kg_shape, "after": after, "floor_shape": floor_shape,
                "kg_elems": kg_elems, "floor_elems": floor_elems, "profile": profile,
            })
        load_after = load_average()

    n = args.edits
    print(f"\n{environment()}")
    print(f"{load_after} (at the end of the measurements)")
    print(f"\nIngest: {n:,} distinct edits, anchor extractor + EATR, no relation embeddings; "
          f"{args.rounds} interleaved rounds, medians")
    rows = []
    for res in results:
        kg_s, floor_s = _median(res["kgtool"]), _median(res["floor"])
        rows.append((res["size"], n / kg_s, n / floor_s, kg_s / floor_s, kg_s, floor_s, res["prep"],
                     n / res["again"], res["kg_elems"].total / kg_s, res["floor_elems"].total / floor_s))
    print(table(["batch", "kgtool edits/s", "floor edits/s", "kgtool/floor x", "kgtool s", "floor s",
                 "kgtool prep s", "re-ingest edits/s", "kgtool elem/s", "floor elem/s"], rows))

    ok = True
    for res in results:
        ratio = _median(res["kgtool"]) / _median(res["floor"])
        print(f"\nbatch {res['size']}: kgtool takes {ratio:.2f}x the same-shape CREATE floor's time "
              f"vs target <= {TARGET_RATIO}x: {verdict(ratio <= TARGET_RATIO)}")
        print("  per round, kgtool s / floor s: " + ", ".join(
            f"{k:.1f}/{f:.1f}" for k, f in zip(res["kgtool"], res["floor"])))
        print("  per round, CPU s (server + client), kgtool / floor: " + ", ".join(
            f"{k[0]:.1f}+{k[1]:.1f} / {f[0]:.1f}+{f[1]:.1f}" for k, f in zip(res["kg_cpu"], res["floor_cpu"])))
        print("  kgtool's first batch write began after (s, per round): "
              + ", ".join(f"{x:.2f}" for x in res["kg_first"]))
        kg_c, fl_c = _median([sum(c) for c in res["kg_cpu"]]), _median([sum(c) for c in res["floor_cpu"]])
        print(f"  CPU seconds (medians): kgtool {kg_c:.1f}, floor {fl_c:.1f}: {kg_c / fl_c:.2f}x "
              "(less swayed by other work on the machine than the wall times)")
        ke, fe = res["kg_elems"], res["floor_elems"]
        print(f"  elements written: kgtool {ke.nodes:,} nodes + {ke.relationships:,} rels + {ke.properties:,} props"
              f" = {ke.total:,}; floor {fe.nodes:,} + {fe.relationships:,} + {fe.properties:,} = {fe.total:,}")
        diff = {k: (res["kg_shape"].get(k, 0), res["floor_shape"].get(k, 0))
                for k in set(res["kg_shape"]) | set(res["floor_shape"])
                if res["kg_shape"].get(k, 0) != res["floor_shape"].get(k, 0)}
        print(f"  shape: {'same labels and types, same counts' if not diff else 'differs (kgtool, floor): ' + str(diff)}")
        print("  kgtool: " + ", ".join(f"{k} {v:,}" for k, v in sorted(res["kg_shape"].items())))
        same = res["kg_shape"] == res["after"]
        print(f"  idempotence (second ingest of the same file): {'counts unchanged' if same else 'COUNTS CHANGED'}")
        if res["profile"]:
            kg_prof, floor_prof = res["profile"]
            print("  kgtool statements (s, all batches): " + ", ".join(
                f"{k.removeprefix('ingest/')} {v:.2f}" for k, v in sorted(kg_prof.items(), key=lambda kv: -kv[1])))
            print("  floor statements (s, all batches): " + ", ".join(
                f"{k} {v:.2f}" for k, v in sorted(floor_prof.items(), key=lambda kv: -kv[1])))
        ok = ok and same and res["summary"].edits_loaded == n
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
