"""Document ingest with passage embeddings: the old path against the new one, and growth with corpus size.

    .venv/bin/python bench/ingest_docs_speed.py [--corpus FILE --format hotpotqa] [--sizes 2000,5000]
        [--skip-old]

Both paths run `kgtool.ingest.docs.ingest_docs` with the mentions extractor
and embed every passage (and the new relation labels) with MiniLM, into an
emptied graph on one throwaway server, interleaved:

- old: extraction and loading first, then every passage embedded in numpy
  (one BLAS thread) page by page (`embed_passages`), as ingest did before;
- new: each written batch embedded on its own thread while the next batch is
  extracted (kgtool.ingest.doc_embed), large batches in onnxruntime on all
  cores (kgtool.models.minilm_onnx), when the onnx extra is installed.

Passages/s end to end (cold: a new embedder object each run; the ONNX graph
file is built once and cached, its build time is printed) and the ratio new/old.
The vectors of both are checked to agree within 1e-4 on the passages of the
last pair of runs.

--sizes: synthetic corpora of N passages, the corpus's documents repeated with
" #k" appended to every title (distinct documents and entities, the same text
lengths), ingested by the new path only, to show how time grows with size.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from common import SHARED_DATA, bench_graph, environment, log, table

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


def run(kg, path: Path, fmt: str, new: bool) -> dict:
    from kgtool.ingest.docs import ingest_docs
    from kgtool.models.embed import MiniLMEmbedder
    from kgtool.retrieve.passages import embed_passages

    kg.clear()
    started = time.perf_counter()
    if new:
        embedder = MiniLMEmbedder()  # onnxruntime for large batches when installed
        summary = ingest_docs(kg.db, path, format=fmt, embedder=embedder, passage_embedder=embedder)
        embedded = summary.passages_embedded
    else:
        embedder = MiniLMEmbedder(backend="numpy")
        summary = ingest_docs(kg.db, path, format=fmt, embedder=embedder, passage_embedder=None)
        embedded = embed_passages(kg.db, embedder)
    seconds = time.perf_counter() - started
    return {"passages": summary.passages, "embedded": embedded, "seconds": seconds,
            "per_s": summary.passages / seconds}


def vectors(kg) -> dict:
    return {r["id"]: r["v"] for r in kg.query("MATCH (p:Passage) RETURN p.id AS id, p.embedding AS v")[1]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    parser.add_argument("--format", default="hotpotqa")
    parser.add_argument("--rounds", type=int, default=1, help="old/new pairs on the corpus")
    parser.add_argument("--sizes", default="", help="synthetic corpus sizes (passages) for the new path")
    parser.add_argument("--skip-old", action="store_true")
    args = parser.parse_args()
    import numpy as np

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
    with bench_graph("1g", "512m", label="docs-speed") as kg:
        corpus = Path(args.corpus)
        for r in range(args.rounds):
            pair = {}
            for new in ((True,) if args.skip_old else (False, True)):
                name = "new" if new else "old"
                log(f"round {r + 1}: {name} path on {corpus.name}")
                pair[name] = run(kg, corpus, args.format, new)
                pair[name + "_vectors"] = vectors(kg)
                log(f"  {pair[name]['passages']} passages in {pair[name]['seconds']:.1f} s")
            for name in ("old", "new"):
                if name in pair:
                    rows.append((f"{corpus.name} ({name})", pair[name]["passages"], pair[name]["embedded"],
                                 f"{pair[name]['seconds']:.1f}", f"{pair[name]['per_s']:.1f}",
                                 f"{pair[name]['per_s'] / pair['old']['per_s']:.2f}" if "old" in pair else "-"))
            if "old" in pair:
                old_v, new_v = pair["old_vectors"], pair["new_vectors"]
                worst = max(float(np.abs(np.asarray(old_v[i]) - np.asarray(new_v[i])).max()) for i in old_v)
                print(f"round {r + 1}: largest difference between old and new vectors {worst:.2e} "
                      f"({'within' if worst <= 1e-4 else 'OVER'} 1e-4)")
        source = json.loads(Path(args.corpus).read_text(encoding="utf-8")) if args.sizes else None
        for n in [int(s) for s in args.sizes.split(",") if s.strip()]:
            if not isinstance(source, dict):
                print("--sizes needs a HotpotQA-format corpus ({title: [sentences]})", file=sys.stderr)
                return 2
            with tempfile.TemporaryDirectory() as tmp:
                path = synthetic(source, n, Path(tmp) / f"synthetic-{n}.json")
                log(f"synthetic corpus of {n} passages: new path")
                result = run(kg, path, "hotpotqa", True)
            log(f"  {result['passages']} passages in {result['seconds']:.1f} s")
            rows.append((f"synthetic {n} (new)", result["passages"], result["embedded"], f"{result['seconds']:.1f}",
                         f"{result['per_s']:.1f}", "-"))
    print(table(("corpus (path)", "passages", "embedded", "seconds", "passages/s", "new/old"), rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
