"""How many mentions of the dev text corpora resolve to structured entities (a running server;
clears the graph). From the repo root:

    python tests/data/resolve/measure_docs.py [--resolver fuzzy] [--json OUT]

Loads the MQuAKE-derived edit corpus and fact file (the structured knowledge), resolves them,
then ingests ../shared/data/text-qa/{hotpotqa,musique}-corpus.json with the default `mentions`
extractor and reads cypher/analyst/mention_linking.cypher: mentions of structured entities,
mentions of entities only text knows, and facts from text about those new entities; then
resolves what the text brought in against the store and reads it again.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEXT = HERE.parents[2].parent / "shared" / "data" / "text-qa"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--resolver", default=None)
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()
    from kgtool.api import KnowledgeGraph
    from kgtool.graph.queries import cypher_root
    from kgtool.resolve import DEFAULT_RESOLVER

    resolver = args.resolver or DEFAULT_RESOLVER
    query = cypher_root() / "analyst" / "mention_linking.cypher"
    out: dict = {"resolver": resolver}
    with KnowledgeGraph.connect() as kg:
        kg.clear()
        kg.init_schema()
        kg.ingest_edits(HERE / "mquake_edits.jsonl")
        kg.ingest_facts(HERE / "mquake_facts.tsv")
        out["structured_merges"] = len(kg.resolve(resolver).merges)
        for name in ("hotpotqa", "musique"):
            kg.ingest_docs(TEXT / f"{name}-corpus.json", format=name, embed_passages=False)
        out["before"] = kg.query_file(query)[1]
        report = kg.resolve(resolver, focus="unchecked")
        out["text_merges"] = len(report.merges)
        out["text_merge_sample"] = [f"{m['absorbed']} -> {m['survivor']} ({m['survivor_id']}) {m['score']}"
                                    for m in report.merges[:15]]
        out["after"] = kg.query_file(query)[1]
    text = json.dumps(out, indent=2, ensure_ascii=False, default=str)
    if args.json_out:
        Path(args.json_out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
