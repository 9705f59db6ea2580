"""Document ingest with embeddings: the old paths against the new one, and growth with corpus size.

    .venv/bin/python bench/ingest_docs_speed.py [--corpus FILE --format hotpotqa] [--sizes 2000,20000]
        [--skip-old] [--with-numpy]

Every path runs `kgtool.ingest.docs.ingest_docs` with the mentions extractor into
an emptied graph on one throwaway server, interleaved, cold (a new embedder
object each run; the ONNX graph file is built once and cached):

- numpy (--with-numpy; session 39): extraction and loading first, then every
  passage embedded in numpy (one BLAS thread) page by page, then the facts;
- now (session 40, `--facts now`, the default): each written batch's passages
  embedded on their own thread while the next batch is extracted, large batches
  in onnxruntime; then relation labels and facts embedded before returning;
- later (session 41, `--facts later`): the same until the passages are written,
  embedded and searchable, then it returns; the facts and relation labels are
  embedded afterwards by `embed_pending` (what `kgtool db doctor --fix` runs),
  timed on its own ("+ pending" rows: the store as complete as `now` leaves it).

Passages/s end to end, and CPU seconds: this process (client) and the server's
JVM, read from /proc, since wall times swing with the load of a shared machine.
The passage vectors of the last pair agree within 1e-4 (checked).

--sizes: synthetic corpora of N passages, the corpus's documents repeated with
" #k" appended to every title (distinct documents and entities, the same text
lengths), ingested by the `later` path (its pending step with --sizes-pending),
to show how time grows with size.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from common import SHARED_DATA, CpuClock, bench_graph, environment, log, table

DEFAULT_CORPUS = SHARED_DATA / "text-qa" / "hotpotqa-corpus.json"


def synthetic(corpus: dict, n: int, path: Path) -> Path:
    """A HotpotQA-format corpus of n passages: the documents repeated, copy k with ' #k' on every title."""
    out, titles = {}, list(corpus)
    k = 0
    while len(out) < n:
        for title in titles:
            if len(out) >= n:
                break
            out[f"{title} #{k}" if k else title] = corpus[title]
        k += 1
    path.write_text(json.dumps(out), encoding="utf-8")
    return path


class Clock(CpuClock):
    """Wall seconds beside CpuClock's CPU seconds (this process's, and the server JVM's from /proc)."""

    def timed(self, fn):
        w0 = time.perf_counter()
        out, (server, client) = self.measure(fn)
        return out, {"seconds": time.perf_counter() - w0, "client": client, "server": server}


def run(kg, clock: Clock, path: Path, fmt: str, path_name: str, pending: bool = True) -> dict:
    from kgtool.ingest.docs import embed_pending, ingest_docs
    from kgtool.models.embed import MiniLMEmbedder
    from kgtool.retrieve.fact_seeds import embed_facts
    from kgtool.retrieve.passages import embed_passages

    kg.clear()
    if path_name == "numpy":
        embedder = MiniLMEmbedder(backend="numpy")

        def ingest():
            summary = ingest_docs(kg.db, path, format=fmt, embedder=embedder, passage_embedder=None)
            summary.passages_embedded = embed_passages(kg.db, embedder)
            summary.facts_embedded = embed_facts(kg.db, embedder)
            return summary
    else:
        embedder = MiniLMEmbedder()  # onnxruntime for large batches when installed
        def ingest():
            return ingest_docs(kg.db, path, format=fmt, embedder=embedder, passage_embedder=embedder,
                               facts=path_name)
    summary, cost = clock.timed(ingest)
    out = {"passages": summary.passages, "embedded": summary.passages_embedded, **cost,
           "facts": summary.facts, "facts_embedded": summary.facts_embedded}
    if path_name == "later" and pending:
        (relations, facts), pending = clock.timed(lambda: embed_pending(kg.db, embedder, embedder))
        out["pending"] = {**pending, "facts_embedded": facts, "relations_embedded": relations}
    return out


def rows_of(label: str, r: dict, base: dict | None) -> list[tuple]:
    def row(name, cost, facts_embedded):
        per_s = r["passages"] / cost["seconds"]
        return (name, r["passages"], facts_embedded, f"{cost['seconds']:.1f}", f"{cost['client']:.1f}",
                f"{cost['server']:.1f}", f"{per_s:.1f}", f"{r['passages'] / (cost['client'] + cost['server']):.1f}",
                f"{per_s / (base['passages'] / base['seconds']):.2f}" if base else "-")
    out = [row(label, r, r["facts_embedded"])]
    if "pending" in r:
        p = r["pending"]
        total = {k: r[k] + p[k] for k in ("seconds", "client", "server")}
        out.append(row(f"{label} + pending", total, p["facts_embedded"]))
    return out


def vectors(kg, label: str = "Passage") -> dict:
    return {r["id"]: r["v"] for r in kg.query(f"MATCH (p:{label}) RETURN p.id AS id, p.embedding AS v")[1]}


def largest_difference(a: dict, b: dict) -> float:
    import numpy as np

    if set(a) != set(b) or any(a[i] is None or b[i] is None for i in a):
        return float("inf")  # a node missing, or one without its vector
    return max((float(np.abs(np.asarray(a[i]) - np.asarray(b[i])).max()) for i in a), default=0.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    parser.add_argument("--format", default="hotpotqa")
    parser.add_argument("--rounds", type=int, default=1, help="old/new pairs on the corpus")
    parser.add_argument("--sizes", default="", help="synthetic corpus sizes (passages) for the new path")
    parser.add_argument("--sizes-pending", action="store_true",
                        help="also time the synthetic corpora's pending step (facts and labels embedded)")
    parser.add_argument("--skip-old", action="store_true", help="only the later path")
    parser.add_argument("--with-numpy", action="store_true", help="also session 39's numpy path (slow)")
    args = parser.parse_args()

    from kgtool.models.embed import MiniLMEmbedder
    from kgtool.models.minilm_onnx import onnx_available

    print(environment())
    print(f"onnx extra installed: {onnx_available()}")
    if onnx_available():
        encoder = MiniLMEmbedder()._load_onnx()
        cached = encoder.model_path().is_file()
        t0 = time.perf_counter()
        encoder._load_session()
        print(f"ONNX graph {'read from the cache' if cached else 'built'} in {time.perf_counter() - t0:.1f} s "
              f"({encoder.model_path()})")
    rows = []
    names = (["numpy"] if args.with_numpy else []) + ([] if args.skip_old else ["now"]) + ["later"]
    with bench_graph("1g", "512m", label="docs-speed") as kg:
        clock = Clock(kg)
        corpus = Path(args.corpus)
        for r in range(args.rounds):
            results, vecs = {}, {}
            for name in names:
                log(f"round {r + 1}: {name} path on {corpus.name}")
                results[name] = run(kg, clock, corpus, args.format, name)
                vecs[name] = (vectors(kg), vectors(kg, "Fact"))
                log(f"  {results[name]}")
            base = results.get("now")
            for name in names:
                rows.extend(rows_of(f"{corpus.name} ({name})", results[name], base))
            if len(vecs) > 1:  # the later path's store, once its pending step ran, is the now path's
                for i, kind in enumerate(("passage", "fact")):
                    worst = largest_difference(vecs[names[0]][i], vecs[names[-1]][i])
                    print(f"round {r + 1}: largest difference between {names[0]} and {names[-1]} {kind} vectors "
                          f"{worst:.2e} ({'within' if worst <= 1e-4 else 'OVER'} 1e-4)")
        source = json.loads(Path(args.corpus).read_text(encoding="utf-8")) if args.sizes else None
        for n in [int(s) for s in args.sizes.split(",") if s.strip()]:
            if not isinstance(source, dict):
                print("--sizes needs a HotpotQA-format corpus ({title: [sentences]})", file=sys.stderr)
                return 2
            with tempfile.TemporaryDirectory() as tmp:
                path = synthetic(source, n, Path(tmp) / f"synthetic-{n}.json")
                log(f"synthetic corpus of {n} passages: later path")
                result = run(kg, clock, path, "hotpotqa", "later", pending=args.sizes_pending)
            log(f"  {result}")
            rows.extend(rows_of(f"synthetic {n} (later)", result, None))
    print(table(("corpus (path)", "passages", "facts embedded", "seconds", "client CPU s", "server CPU s",
                 "passages/s", "passages/CPU s", "speed / now"), rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
