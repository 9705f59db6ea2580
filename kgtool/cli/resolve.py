"""`kgtool resolve ...` and the `--resolve` option of `kgtool ingest`: parse, call the API, print.

    kgtool resolve [--resolver evidence] [--min-score S] [--dry-run] [--json OUT]
    kgtool resolve --undo MERGE_ID [--undo MERGE_ID ...] | --undo --ingest PASS|FILE | --undo --all
    kgtool resolve list [--resolver R] [--ingest PASS|FILE] | list --suggestions
    kgtool resolve accept SUGGESTION_ID...
    kgtool resolve explain MERGE_ID
    kgtool resolve pairs tests/data/resolve/pairs.jsonl     # precision / recall per resolver
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.table import Table

from kgtool.cli.present import console

from kgtool.resolve import CHOICES, DEFAULT_RESOLVER



def _connect():
    from kgtool.api import KnowledgeGraph
    from kgtool.config import Settings

    return KnowledgeGraph.connect(Settings.load())


def resolve_option(command):
    """The `--resolve` option of the ingest commands."""
    return click.option(
        "--resolve", "resolve_with", type=click.Choice(CHOICES), default=None,
        help="Entity resolution of what the file brought in against the graph: evidence (merges only when "
             "something beyond the name agrees: an id, an alias stated in the data, rare facts in common; no "
             "contradiction; name-only matches become suggestions), or on names alone: exact (normalised names "
             "and aliases), fuzzy (RapidFuzz), embedding (MiniLM); id (Wikidata ids / IRIs only; the others "
             f"include it), none. Default: {DEFAULT_RESOLVER} for edits and fact files; none for documents "
             "(on the dev text corpora it merged bare mentions into disambiguated titles) and for --bulk "
             "loads (not measured at that scale). Each merge is recorded: `kgtool resolve list`, `--undo`.")(command)


def resolve_after_ingest(kg, resolver: str, path=None) -> dict:
    """Resolve the entities no pass has compared yet (those the ingest wrote of `path`) and name every
    merge (the first ones; the rest by `resolve list --ingest PASS`); returns the pass's summary."""
    from kgtool.ingest.load import source_id
    from kgtool.resolve.ingest import SHOWN, summarize
    from kgtool.resolve.store import new_pass_id

    if resolver == "none":
        return {"resolver": "none", "merges": 0, "source_conflicts": 0}
    report = kg.resolve(resolver, focus="unchecked", pass_id=new_pass_id("ingest"),
                        source=source_id(path) if path else None)
    summary = summarize(report)
    console.print(f"resolve ({resolver}, pass {report.pass_id}): {len(report.merges)} merge(s), "
                  f"{len(report.suggestions)} suggestion(s) left for you, {len(report.source_conflicts)} fact(s) "
                  "settled by an edit's conflict policy", highlight=False, markup=False)
    for line in summary["merged"]:
        console.print(f"  merged {line}", highlight=False, markup=False)
    if len(report.merges) > SHOWN:
        console.print(f"  and {len(report.merges) - SHOWN} more: kgtool resolve list --ingest {report.pass_id}",
                      highlight=False, markup=False)
    if report.merges:
        console.print(f"  undo them: kgtool resolve --undo --ingest {report.pass_id}", highlight=False, markup=False)
    if report.suggestions:
        console.print("  suggestions (names alike, not enough evidence): kgtool resolve list --suggestions; "
                      "kgtool resolve accept ID", highlight=False, markup=False)
    return summary


def _print_merges(rows: list[dict], title: str, limit: int = 50) -> None:
    table = Table(title=title)
    for col in ("merge", "score", "resolver", "absorbed", "into", "reason"):
        table.add_column(col)
    for row in rows[:limit]:
        table.add_row(row.get("merge_id") or "-", f"{row['score']:.3f}", row["resolver"],
                      f"{row['absorbed']} ({row['absorbed_id']})", f"{row['survivor']} ({row['survivor_id']})",
                      row["reason"])
    console.print(table)
    if len(rows) > limit:
        console.print(f"... and {len(rows) - limit} more (--json OUT has them all)")


@click.group("resolve", invoke_without_command=True)
@click.option("--resolver", type=click.Choice(CHOICES), default=DEFAULT_RESOLVER, show_default=True,
              help="Which resolver proposes merges (the id resolver always runs first).")
@click.option("--min-score", type=float, default=None,
              help="The resolver's threshold (default: its own; for evidence, bits of agreement: 9).")
@click.option("--dry-run", is_flag=True, help="List the merges with scores and write nothing.")
@click.option("--undo", "undo_ids", is_flag=False, flag_value="", multiple=True, metavar="ID",
              help="Undo merges exactly: --undo ID (repeatable, or ID,ID), --undo --ingest PASS|FILE (every merge "
                   "of one pass), --undo --all. An undone pair is kept apart from then on.")
@click.option("--ingest", "ingest", default=None, metavar="PASS|FILE",
              help="With --undo: the merges of one resolver pass (its id, as an ingest's summary names it) or of "
                   "the passes after ingests of FILE.")
@click.option("--all", "undo_all", is_flag=True, help="With --undo: every merge in the graph.")
@click.option("--near-misses", "record", is_flag=True,
              help="Also record pairs left apart as MAYBE_SAME_AS (cypher/analyst/resolve_near_misses.cypher).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Also write the report as JSON.")
@click.pass_context
def resolve_cmd(ctx, resolver, min_score, dry_run, undo_ids, ingest, undo_all, record, json_out):
    """Merge entities that are one thing, with a record per merge (list, explain, undo, suggestions)."""
    if ctx.invoked_subcommand is not None:
        return
    if (ingest or undo_all) and not undo_ids:
        raise click.UsageError("--ingest and --all go with --undo (to list one pass's merges: "
                               "kgtool resolve list --ingest ID)")
    with _connect() as kg:
        kg.init_schema()
        if undo_ids:
            _undo(kg, [i for text in undo_ids for i in text.split(",") if i.strip()], ingest, undo_all)
            return
        report = kg.resolve(resolver, min_score=min_score, dry_run=dry_run, record_near_misses=record)
    title = ("would merge (dry run, nothing written)" if dry_run else f"merged (pass {report.pass_id})") + \
        f": {len(report.merges)} of {report.entities} entities"
    _print_merges(report.merges, title)
    if report.suggestions:
        console.print(f"{len(report.suggestions)} suggestion(s) (alike, not enough evidence)"
                      + ("" if dry_run else ": kgtool resolve list --suggestions"), highlight=False)
    if report.near_misses:
        console.print(f"{len(report.near_misses)} near miss(es) left apart, best: " + "; ".join(
            f"{m['absorbed']} ~ {m['survivor']} {m['score']:.3f} ({m['reason']})" for m in report.near_misses[:5]),
            highlight=False, markup=False)
    if report.source_conflicts:
        console.print(f"{len(report.source_conflicts)} file fact(s) now in an edited slot, settled by the edit's "
                      "conflict policy", highlight=False)
    if json_out:
        Path(json_out).write_text(json.dumps(report.as_dict(), indent=2, ensure_ascii=False, default=str))


def _undo(kg, ids: list[str], ingest: str | None, everything: bool) -> None:
    from kgtool.resolve.review import undo_many

    try:
        results = undo_many(kg.db, [i.strip() for i in ids], ingest=ingest, everything=everything)
    finally:
        kg.reset_caches()
    for result in results:
        console.print(f"undid {result['merge_id']}: {result['absorbed_id']} is its own entity again "
                      f"({result['facts_moved']} fact(s) moved back from {result['survivor_id']}); kept apart from "
                      "now on", highlight=False, markup=False)
    console.print(f"{len(results)} merge(s) undone", highlight=False)


@resolve_cmd.command("list")
@click.option("--resolver", default=None, help="Only this resolver's merges.")
@click.option("--ingest", default=None, metavar="PASS|FILE",
              help="Only the merges of one resolver pass (its id, as an ingest's summary names it) or of the passes "
                   "after ingests of FILE.")
@click.option("--suggestions", is_flag=True,
              help="The open suggestions instead: pairs alike by name but short of the evidence a merge needs, with "
                   "the evidence for and against; `kgtool resolve accept ID` merges one.")
@click.option("--limit", default=100, show_default=True)
def list_cmd(resolver, ingest, suggestions, limit):
    """The merges in the graph, newest first (or the open suggestions, best first)."""
    from kgtool.resolve.review import suggestions as open_suggestions

    with _connect() as kg:
        rows = open_suggestions(kg.db, limit=limit + 1) if suggestions else kg.merges(resolver, limit + 1, ingest)
    if suggestions:
        _print_suggestions(rows, limit)
        return
    _print_merges([{**r, "survivor": r["survivor_name"], "absorbed": r["absorbed_name"]} for r in rows],
                  f"{min(len(rows), limit)}{'+' if len(rows) > limit else ''} merge(s)", limit)


def _print_suggestions(rows: list[dict], limit: int) -> None:
    table = Table(title=f"{min(len(rows), limit)}{'+' if len(rows) > limit else ''} open suggestion(s)")
    for col in ("suggestion", "bits", "a", "b", "evidence for", "against"):
        table.add_column(col)
    for row in rows[:limit]:
        found, against = _for_against(row["reason"])
        table.add_row(row["id"], f"{row['score']:.1f}", f"{row['a_name']} ({row['a_id']})",
                      f"{row['b_name']} ({row['b_id']})", found, against)
    console.print(table)
    if rows:
        console.print("merge the ones that are one thing: kgtool resolve accept ID [ID ...]", highlight=False)


def _for_against(reason: str) -> tuple[str, str]:
    if "; for: " not in reason:
        return reason, ""
    found, _, against = reason.split("; for: ", 1)[1].partition("; against: ")
    return found, against


@resolve_cmd.command("accept")
@click.argument("ids", nargs=-1, required=True)
def accept_cmd(ids):
    """Merge suggested pairs (ids from `kgtool resolve list --suggestions`); recorded and undoable like any merge."""
    from kgtool.resolve.review import accept

    with _connect() as kg:
        try:
            result = accept(kg.db, ids)
        finally:
            kg.reset_caches()
    for m in result["merges"]:
        console.print(f"merged {m['survivor']} <- {m['absorbed']} (accepted {m['suggestion']})", highlight=False,
                      markup=False)
    console.print(f"{len(result['merges'])} merge(s), pass {result['pass_id']}; undo: kgtool resolve --undo --ingest "
                  f"{result['pass_id']}", highlight=False, markup=False)


@resolve_cmd.command("explain")
@click.argument("merge_id")
def explain_cmd(merge_id):
    """One merge: who merged what with which score and why, and the facts it moved with their sources."""
    with _connect() as kg:
        info = kg.explain_merge(merge_id)
    m = info["merge"]
    console.print(f"{m['id']}: {m['absorbed_name']} ({m['absorbed_id']}) -> {m['survivor_name']} "
                  f"({m['survivor_id']}) by {m['resolver']} at {m['score']:.3f}: {m['reason']}", highlight=False,
                  markup=False)
    console.print(f"aliases added: {', '.join(m['added_aliases']) or 'none'}; edits re-pointed: "
                  f"{len(m['subject_edits']) + len(m['object_edits'])}; created {m['created_at']}", highlight=False,
                  markup=False)
    for f in info["facts"]:
        console.print(f"  {f['head']} | {f['relation']} | {f['tail']} [{f['status']}] from "
                      f"{', '.join(f['sources']) or 'no source'}", highlight=False, markup=False)


@resolve_cmd.command("pairs")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--resolver", "resolvers", default="id,exact,fuzzy,embedding,evidence", show_default=True)
@click.option("--min-precision", default=0.98, show_default=True)
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Also write every figure as JSON.")
def pairs_cmd(resolvers, path, min_precision, json_out):
    """Precision and recall of merges on a labelled pair file, per resolver and threshold."""
    from kgtool.resolve.evaluate import best_default, read_pairs, sweep

    scores = sweep(read_pairs(path), [r.strip() for r in resolvers.split(",") if r.strip()])
    table = Table(title=f"merges on {path}")
    for col in ("resolver", "min score", "TP", "FP", "FN", "TN", "precision", "recall", "F1"):
        table.add_column(col)
    for s in scores:
        table.add_row(s.resolver, f"{s.min_score:.2f}", str(s.tp), str(s.fp), str(s.fn), str(s.tn),
                      f"{s.precision:.4f}", f"{s.recall:.4f}", f"{s.f1:.4f}")
    console.print(table)
    best = best_default(scores, min_precision)
    console.print(f"best F1 with precision >= {min_precision}: "
                  + (f"{best.resolver} at {best.min_score:.2f}" if best else "none"), highlight=False)
    if json_out:
        Path(json_out).write_text(json.dumps([s.as_dict() for s in scores], indent=2, ensure_ascii=False))
    if best is None:
        sys.exit(1)
