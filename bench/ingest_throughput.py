"""Ingestion throughput: kgtool's edit ingestion against a raw Neo4j write.

    .venv/bin/python bench/ingest_throughput.py [--edits 50000] [--file FILE]
        [--batch-sizes 2000] [--keep-jsonl PATH]

The edits of an MQuAKE file (default: the shared MQuAKE-hard dev file) are
repeated until there are --edits of them. Every copy k gets its own ids, case
ids and entity names (" #k" appended; Wikidata Q-ids dropped so names decide
identity), so the graph really receives N distinct edits about distinct
entities. They are written to a temporary JSONL file in kgtool's format.

Measured side by side on one throwaway server, each on an empty graph with
the schema applied, after a small warm-up of both:

- kgtool: `kg.ingest_edits(path, extractor="anchor", embed_relations=False)`
  (read, anchor extraction, EATR, batched MERGE writes, conflict flags);
- raw: the same JSONL file read line by line and written as flat property
  maps with `UNWIND $rows AS row CREATE (e:RawEdit) SET e = row`, one
  transaction per batch of the same size.

Then kgtool's ingest runs again on the loaded graph, and the node and
relationship counts must not change (idempotence).

Targets: >= 5,000 edits/s, and within 3x of the raw write.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import SHARED_DATA, bench_graph, environment, log, memory_for, table, verdict  # noqa: E402

TARGET_EDITS_PER_S = 5_000
WARMUP_EDITS = 5_000
TARGET_RATIO = 3.0

# The baseline lives here, not in kgtool/cypher: it is the yardstick, not part of the package.
RAW_WRITE = "UNWIND $rows AS row CREATE (e:RawEdit) SET e = row"
RAW_CLEAR = "MATCH (e:RawEdit) CALL (e) { DELETE e } IN TRANSACTIONS OF 10000 ROWS"

_ALIAS_FIELDS = ("subject_aliases", "object_aliases", "old_object_aliases")


# --------------------------------------------------------------------------- corpus


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
    """Write n_edits distinct edits to `out` (JSONL); returns the number of copies used."""
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


# --------------------------------------------------------------------------- the two writers


def raw_row(obj: dict) -> dict:
    """One edit as a flat property map (alias lists joined, as kgtool's alias_text)."""
    row = dict(obj)
    for name in _ALIAS_FIELDS:
        if name in row:
            row[name] = " | ".join(row[name])
    return row


def raw_ingest(kg, path: Path, batch_size: int) -> float:
    """Read the JSONL file and CREATE one node per edit; seconds taken."""
    t0 = time.perf_counter()
    batch: list[dict] = []
    with kg.db.session() as session:
        def flush() -> None:
            session.execute_write(lambda tx: tx.run(RAW_WRITE, rows=batch).consume())
            batch.clear()

        with path.open("rb") as fh:
            for line in fh:
                if line.strip():
                    batch.append(raw_row(json.loads(line)))
                    if len(batch) >= batch_size:
                        flush()
        if batch:
            flush()
    return time.perf_counter() - t0


def raw_clear(kg) -> None:
    with kg.db.session() as session:
        session.run(RAW_CLEAR).consume()


def kg_ingest(kg, path: Path, batch_size: int):
    t0 = time.perf_counter()
    summary = kg.ingest_edits(path, extractor="anchor", embed_relations=False, batch_size=batch_size)
    return time.perf_counter() - t0, summary


def counts(kg) -> dict[str, int]:
    stats = kg.stats()
    flat = {f"(:{k})": v for k, v in stats["nodes"].items()}
    flat.update({f"[:{k}]": v for k, v in stats["relationships"].items()})
    return flat


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=50_000, help="distinct edits to ingest (default 50000)")
    parser.add_argument("--file", type=Path, default=SHARED_DATA / "mquake-hard-dev.json",
                        help="MQuAKE JSON (or kgtool JSONL) whose edits are repeated")
    parser.add_argument("--batch-sizes", default="2000",
                        help="comma-separated batch sizes to measure, e.g. 1000,2000,5000 (default 2000)")
    parser.add_argument("--keep-jsonl", type=Path, default=None, help="also keep the generated JSONL here")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.batch_sizes.split(",") if s.strip()]

    workdir = Path(tempfile.mkdtemp(prefix="kgtool-bench-ingest-"))
    try:
        return _run(args, sizes, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _run(args, sizes: list[int], workdir: Path) -> int:
    corpus = args.keep_jsonl or workdir / "edits.jsonl"
    copies = build_corpus(args.file, args.edits, corpus)
    warm = workdir / "warmup.jsonl"
    with corpus.open("rb") as src, warm.open("wb") as dst:
        for _, line in zip(range(min(WARMUP_EDITS, args.edits)), src):
            dst.write(line)
    log(f"{args.edits:,} distinct edits ({copies} copies of {args.file.name}) in {corpus}")

    heap, pagecache = memory_for(args.edits)
    results = []
    with bench_graph(heap, pagecache, label="ingest") as kg:
        # warm both paths (JIT, query plans, driver) on a small file first
        for _ in range(2):
            raw_ingest(kg, warm, sizes[0])
            raw_clear(kg)
        kg_ingest(kg, warm, sizes[0])
        kg.clear()

        for size in sizes:
            raw_s = raw_ingest(kg, corpus, size)
            raw_clear(kg)
            log(f"batch {size}: raw {args.edits / raw_s:,.0f} edits/s")
            kg_s, summary = kg_ingest(kg, corpus, size)
            log(f"batch {size}: kgtool {args.edits / kg_s:,.0f} edits/s "
                f"({summary.edits_loaded:,} edits loaded, {summary.kept:,} candidates kept by EATR)")
            if summary.skipped:
                log(f"  {len(summary.skipped)} skipped, e.g. {summary.skipped[0]}")
            before = counts(kg)
            again_s, _ = kg_ingest(kg, corpus, size)
            after = counts(kg)
            results.append((size, raw_s, kg_s, again_s, before, after, summary))
            kg.clear()

    print(f"\n{environment()}")
    print(f"\nIngest throughput: {args.edits:,} distinct edits, anchor extractor + EATR, no relation embeddings")
    rows = []
    for size, raw_s, kg_s, again_s, *_ in results:
        raw_rate, kg_rate = args.edits / raw_s, args.edits / kg_s
        rows.append((size, kg_rate, raw_rate, kg_rate / raw_rate, kg_s / raw_s,
                     args.edits / again_s, kg_s, raw_s))
    print(table(["batch", "kgtool edits/s", "raw edits/s", "kgtool/raw", "slowdown x", "re-ingest edits/s",
                 "kgtool s", "raw s"], rows))

    ok = True
    for size, raw_s, kg_s, _again, before, after, summary in results:
        kg_rate, ratio = args.edits / kg_s, kg_s / raw_s
        print(f"\nbatch {size}: {kg_rate:,.0f} edits/s vs target {TARGET_EDITS_PER_S:,}: {verdict(kg_rate >= TARGET_EDITS_PER_S)}; "
              f"{ratio:.2f}x the raw write's time vs target <= {TARGET_RATIO:.0f}x: {verdict(ratio <= TARGET_RATIO)}")
        same = before == after
        print(f"  idempotence (second ingest of the same file): {'counts unchanged' if same else 'COUNTS CHANGED'}")
        print("  " + ", ".join(f"{k} {v:,}" for k, v in sorted(before.items())))
        if not same:
            changed = {k: (before.get(k), after.get(k)) for k in set(before) | set(after) if before.get(k) != after.get(k)}
            print(f"  changed: {changed}")
        ok = ok and same and summary.edits_loaded == args.edits
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
