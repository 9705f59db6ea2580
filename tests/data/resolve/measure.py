"""The issue-30 dev figures on the MQuAKE-derived edit corpus and fact file (a running server:
KGTOOL_HOME / KGTOOL_NEO4J_PORT, or NEO4J_URI). Clears the graph. From the repo root:

    python tests/data/resolve/measure.py [--resolver fuzzy] [--cases 98] [--json OUT]

1. both sources ingested without resolution: entities, names held by several entities,
   and how many of the cases' post-edit questions (hops 1-2 from the edits, 3-4 from the
   fact file) are answered;
2. `resolve --dry-run`, then resolution: merges, names held by several entities, answers;
3. every merge undone: the counts of every label and relationship type against step 1;
4. resolved again, then each source deleted in turn (on a fresh load): the other source's
   facts are all still there and still stated by it.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
EDITS, FACTS = HERE / "mquake_edits.jsonl", HERE / "mquake_facts.tsv"
MQUAKE = HERE.parents[2].parent / "shared" / "data" / "mquake-hard-dev.json"


def shared_names(kg) -> dict[str, list[str]]:
    """Normalised names and aliases held by more than one entity."""
    from kgtool.core.text import normalize

    holders: dict[str, set[str]] = defaultdict(set)
    for row in kg.db.read("resolve/entities", ids=None):
        for name in [row["name"], *row["aliases"]]:
            if isinstance(name, str) and normalize(name):
                holders[normalize(name)].add(row["id"])
    return {k: sorted(v) for k, v in holders.items() if len(v) > 1}


# the knowledge in the graph (answering adds runs, which an undo leaves alone)
KNOWLEDGE = {"Entity", "MergedEntity", "EntityMerge", "Fact", "Edit", "Passage", "Source", "Relation", "NameKey",
             "Document", "SUBJECT_OF", "OBJECT", "ASSERTS", "SUPERSEDES", "SUPPORTS", "STATES", "CONFLICTS_WITH",
             "OVERRIDES", "SAME_AS", "ABSORBED", "INTO", "NAMES", "MENTIONS", "ABOUT", "HAS_PASSAGE", "MAYBE_SAME_AS"}


def counts(kg) -> dict:
    from kgtool.ingest.graph_linker import GraphLinker

    GraphLinker(kg.db).sync()  # name keys current, so both snapshots compare like with like
    stats = kg.stats()
    return {kind: {k: v for k, v in stats[kind].items() if k in KNOWLEDGE} for kind in stats}


def answered(kg, cases) -> tuple[int, list]:
    from kgtool.eval.metrics import normalize_answer  # SQuAD normalisation

    hits, rows = 0, []
    for case in cases:
        gold = {normalize_answer(a) for a in [case["new_answer"], *case.get("new_answer_alias", [])]}
        result = kg.answer(case["questions"][0], method="care", agents="offline")
        ok = normalize_answer(result.answer or "") in gold
        hits += ok
        rows.append({"case": case["case_id"], "answer": result.answer, "gold": case["new_answer"], "ok": ok})
    return hits, rows


def source_facts(kg, path: Path) -> set[str]:
    from kgtool.ingest.load import source_id

    rows = kg.query("MATCH (:Source {id: $id})-[:STATES]->(f:Fact) RETURN f.id AS id", {"id": source_id(path)})[1]
    return {r["id"] for r in rows}


def edit_facts(kg) -> set[str]:
    rows = kg.query("MATCH (:Edit)-[:ASSERTS]->(f:Fact) RETURN DISTINCT f.id AS id")[1]
    return {r["id"] for r in rows}


def load_both(kg, resolver: str | None):
    kg.clear()
    kg.init_schema()
    kg.ingest_edits(EDITS)
    kg.ingest_facts(FACTS)
    return kg.resolve(resolver) if resolver else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--resolver", default=None, help="default: kgtool.resolve.DEFAULT_RESOLVER")
    parser.add_argument("--cases", type=int, default=98)
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()
    from kgtool.api import KnowledgeGraph
    from kgtool.resolve import DEFAULT_RESOLVER

    resolver = args.resolver or DEFAULT_RESOLVER
    cases = json.loads(MQUAKE.read_text(encoding="utf-8"))[: args.cases]
    out: dict = {"resolver": resolver, "cases": len(cases)}
    with KnowledgeGraph.connect() as kg:
        load_both(kg, None)
        before = counts(kg)
        out["before"] = {"entities": before["nodes"].get("Entity"), "shared_names": len(shared_names(kg))}
        out["before"]["answered"] = answered(kg, cases)[0]
        dry = kg.resolve(resolver, dry_run=True)
        out["dry_run_merges"] = len(dry.merges)
        out["dry_run_sample"] = dry.merges[:5]
        report = kg.resolve(resolver)
        after_shared = shared_names(kg)
        hits, rows = answered(kg, cases)
        out["after"] = {"merges": len(report.merges), "entities": kg.stats()["nodes"].get("Entity"),
                        "shared_names": len(after_shared), "shared_sample": dict(list(after_shared.items())[:10]),
                        "source_conflicts": len(report.source_conflicts), "answered": hits,
                        "near_misses": len(report.near_misses), "near_sample": report.near_misses[:10]}
        out["answers"] = rows
        # undo every merge, newest first
        for merge in kg.merges(limit=100000):
            kg.undo_merge(merge["merge_id"])
        undone = counts(kg)
        diff = {f"{kind}:{k}": (before[kind].get(k, 0), undone[kind].get(k, 0))
                for kind in ("nodes", "relationships") for k in set(before[kind]) | set(undone[kind])
                if before[kind].get(k, 0) != undone[kind].get(k, 0)}
        out["undo"] = {"counts_equal": not diff, "differences": diff}
        # delete either source after a merge
        for gone, kept in ((FACTS, EDITS), (EDITS, FACTS)):
            load_both(kg, resolver)
            kept_before = source_facts(kg, kept) if kept == FACTS else edit_facts(kg)
            kg.delete(source=str(gone))
            kept_after = source_facts(kg, kept) if kept == FACTS else edit_facts(kg)
            left = {"facts_before": len(kept_before), "facts_after": len(kept_after),
                    "intact": kept_before == kept_after,
                    "gone_source_facts_left": len(source_facts(kg, gone)) if gone == FACTS else len(edit_facts(kg)),
                    "merges_left": len(kg.merges())}
            out[f"delete_{gone.name}"] = left
    text = json.dumps(out, indent=2, ensure_ascii=False, default=str)
    if args.json_out:
        Path(args.json_out).write_text(text)
    print(json.dumps({k: v for k, v in out.items() if k != "answers"}, indent=2, ensure_ascii=False, default=str))
    sys.exit(0 if out["undo"]["counts_equal"] else 1)


if __name__ == "__main__":
    main()
