"""`kgtool ingest edits|docs|facts` and `kgtool delete`: loading sources into the graph and taking them out."""
from __future__ import annotations

import sys

import click

from kgtool.cli.app import Choice, connect
from kgtool.cli.present import print_notice, write_json
from kgtool.cli.resolve import resolve_after_ingest, resolve_option
from kgtool.core import formats
from kgtool.resolve import DEFAULT_RESOLVER
from kgtool.cli.present.reports import (bulk_phase, bulk_rows, embedded_facts_row, ingest_progress,
                                        new_and_present, print_delete, print_ingest, stage_progress)

_BULK_HELP = ("Load into an EMPTY local store with Neo4j's offline importer (neo4j-admin database import full): "
              "much faster for large files; stops and restarts the local server; any bad line refuses the whole "
              "file before anything changes.")


def _finish(path, rows, summary, json_out) -> None:
    """Print the summary, write its JSON; exit 1 if records were skipped."""
    print_ingest(path, rows, summary)
    from kgtool.cli.app import settings
    from kgtool.graph.warmup import start_background

    start_background(settings())  # the graph's statistics changed: plans made anew, off the next answer's clock
    if json_out:
        write_json(json_out, {**summary.as_dict(), "new": getattr(summary, "new", None)})
    if summary.skipped:
        sys.exit(1)


@click.group()
def ingest():
    """Load corpora into the graph."""


@ingest.command("edits")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=Choice(formats.EDITS.formats), default=None,
              help="Input format (default: from the extension, .json = MQuAKE, .jsonl = kgtool edits).")
@click.option("--extractor", default="anchor", show_default=True,
              help="anchor (no model), rebel (Babelscape/rebel-large), llm, auto, or a REBEL model directory.")
@click.option("--no-eatr", is_flag=True, help="Load raw extracted candidates (the paper's ablation).")
@click.option("--strict", is_flag=True, help="Validate everything first; write nothing if any record is bad.")
@click.option("--batch", default=None, help="Batch name stored on every edit (default: the file name); scopes answering.")
@click.option("--batch-size", default=2000, show_default=True, help="Edits per transaction.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Also write the summary as JSON.")
@click.option("--conflicts", type=Choice(["latest", "keep-all", "fail"]), default="latest", show_default=True,
              help="Edits that set one (subject, relation) to different objects: latest = the later edit (later "
                   "run, then later line) wins and the earlier is marked superseded-by-conflict; keep-all = both "
                   "stay in force, flagged; fail = refuse the file and write nothing.")
@click.option("--bulk", is_flag=True, help=_BULK_HELP)
@resolve_option
def ingest_edits_cmd(path, fmt, extractor, no_eatr, strict, batch, batch_size, json_out, conflicts, bulk, resolve_with):
    """Ingest a knowledge-edit corpus (MQuAKE JSON or kgtool JSONL) into Neo4j.

    Each edit asserts its new fact and supersedes the pre-edit one; EATR keeps
    only extracted triples whose endpoints match the edit and whose relation is
    consistent with it. Re-running the same file changes nothing. Bad records
    are skipped and listed (file:line and reason) and the exit code is 1.
    """
    formats.detect_format(path, fmt, formats.EDITS)  # a wrong file is refused before anything starts
    with connect() as kg:
        kg.init_schema()
        with ingest_progress("edits") as (bar, progress):
            bulk_options = {"bulk": True, "phase": bulk_phase(bar)} if bulk else {}
            summary = kg.ingest_edits(path, format=fmt, extractor=extractor, eatr=not no_eatr, strict=strict,
                                      batch=batch, batch_size=batch_size, progress=progress, conflicts=conflicts,
                                      fact_progress=stage_progress(bar)("facts"), **bulk_options)
        resolved = resolve_after_ingest(kg, resolve_with or ("none" if bulk else DEFAULT_RESOLVER), path)
        if hasattr(summary, "resolve"):  # the --json summary names the merges too
            summary.resolve = resolved
    _finish(path, (
        ("records read", summary.records_read), ("edits loaded", summary.edits_loaded),
        *new_and_present(summary, "edits", summary.edits_loaded, "edits"),
        ("base facts", summary.base_facts), ("candidates", summary.candidates), ("kept", summary.kept),
        ("rejected", ", ".join(f"{k}: {v}" for k, v in sorted(summary.rejected.items())) or "0"),
        ("facts written", summary.facts), *new_and_present(summary, "facts", summary.facts, "facts"),
        ("conflicts", summary.conflicts),
        ("superseded by conflict", f"{summary.superseded_by_conflict} (policy {summary.conflict_policy})"),
        *embedded_facts_row(summary), ("skipped", len(summary.skipped)), ("seconds", f"{summary.seconds:.2f}"),
    ) + bulk_rows(summary), summary, json_out)


@ingest.command("docs")
@click.argument("path", type=click.Path(exists=True))
@click.option("--format", "fmt", type=Choice(formats.DOCS.formats), default=None,
              help="hotpotqa ({title: [sentences]}), musique / 2wiki ([{title, text}]), jsonl ({id, title?, text} "
                   "a line) or text (a .txt file or a directory of them). Default: text for a directory or .txt, "
                   "jsonl for .jsonl.")
@click.option("--extractor", default="mentions", show_default=True,
              help="mentions (no model: linked entity mentions and the phrase joining them), deps (the same "
                   "mentions related by spaCy's dependency parse: subject, verb, object; the spacy extra), "
                   "rebel, llm.")
@click.option("--strict", is_flag=True, help="Validate everything first; write nothing if any record is bad.")
@click.option("--batch-size", default=500, show_default=True, help="Passages per transaction.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Also write the summary as JSON.")
@click.option("--on-duplicate", type=Choice(["merge", "error", "skip"]), default=None,
              help="A record naming a document already read, with other text: merge it as more passages "
                   "(default for title formats), error (default for jsonl) or skip it. Each is counted and listed.")
@click.option("--facts", "fact_timing", type=Choice(["now", "later"]), default="now", show_default=True,
              help="When to embed the facts (the graph walk's fact seeds) and relation labels: now, or later: "
                   "return once the passages are searchable (about half the CPU) and leave them to "
                   "`kgtool db doctor --fix`; until then the walk seeds from the names it links.")
@resolve_option
def ingest_docs_cmd(path, fmt, extractor, strict, batch_size, json_out, on_duplicate, fact_timing, resolve_with):
    """Ingest a document collection (FILE or DIR) as Documents, Passages and the facts read from them.

    Passages keep their text once with sentence boundaries, and are indexed for
    retrieval (full-text, and an embedding from the graph's embedder); triples extracted from each passage are
    linked to the same Entity nodes as edits and fact files, and (:Passage)-[:SUPPORTS]->(:Fact)
    records where each came from. Re-running the same file changes nothing.
    Bad records are skipped and listed (file:line or file:title) and the exit code is 1.
    """
    formats.detect_format(path, fmt, formats.DOCS)  # a wrong file is refused before anything starts
    with connect() as kg:
        kg.init_schema()
        with ingest_progress("passages") as (bar, progress):
            stage = stage_progress(bar)
            summary = kg.ingest_docs(path, format=fmt, extractor=extractor, strict=strict, batch_size=batch_size,
                                     progress=progress, embed_progress=stage("passages"),
                                     fact_progress=stage("facts"), on_duplicate=on_duplicate, facts=fact_timing)
        resolve_after_ingest(kg, resolve_with or "none", path)
    for note in summary.duplicates:
        print_notice("duplicate", note)
    for note in summary.oversize:
        print_notice("warning:", note)
    _finish(path, (
        ("format", summary.format), ("extractor", summary.extractor), ("documents", summary.documents),
        ("passages", summary.passages), *new_and_present(summary, "passages", summary.passages, "passages"),
        ("facts", summary.facts), *new_and_present(summary, "facts", summary.facts, "facts"),
        ("facts per passage", f"{summary.facts_per_passage:.2f}"), ("entities", summary.entities),
        ("relations", summary.relations), ("passages embedded", summary.passages_embedded),
        ("facts embedded", summary.facts_embedded if not summary.facts_pending
         else "later (kgtool db doctor --fix embeds them)"),
        (f"duplicates ({summary.on_duplicate})", len(summary.duplicates)), ("repeats (same text)", summary.repeats),
        ("skipped", len(summary.skipped)), ("seconds", f"{summary.seconds:.2f}"),
    ), summary, json_out)


@ingest.command("facts")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=Choice(formats.FACTS.formats), default=None,
              help="tsv (head, relation, tail[, evidence] a line; or a header line naming columns among head, "
                   "relation, tail, evidence, head_id, tail_id, relation_id, tail_type, tail_unit), jsonl ({head, "
                   "relation, tail, evidence?, head_id?, tail_id?, relation_id?, tail_type?, tail_unit?}) or nt "
                   "(N-Triples; xsd-typed literals are values). Default: from the extension (.tsv/.txt, .jsonl, .nt).")
@click.option("--strict", is_flag=True, help="Validate everything first; write nothing if any line is bad.")
@click.option("--batch-size", default=5000, show_default=True, help="Facts per transaction.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Also write the summary as JSON.")
@click.option("--bulk", is_flag=True, help=_BULK_HELP)
@resolve_option
def ingest_facts_cmd(path, fmt, strict, batch_size, json_out, bulk, resolve_with):
    """Ingest a plain knowledge graph (triples) as base facts stated by the file.

    IRIs and names with underscores get readable names (the original kept as an
    alias); entities with the same name or Wikidata id are shared with edits and
    documents; an id of the file's own (head_id, tail_id) keeps two things of one
    name apart. A tail that is a number, date, boolean, quantity or URL (or that
    tail_type types) is a value of its fact, never an entity others share. Re-running the same file changes nothing; `kgtool delete --source
    FILE` removes what only this file stated. Bad lines are skipped and listed
    (file:line and reason) and the exit code is 1.
    """
    formats.detect_format(path, fmt, formats.FACTS)  # a wrong file is refused before anything starts
    with connect() as kg:
        kg.init_schema()
        with ingest_progress("facts") as (bar, progress):
            bulk_options = {"bulk": True, "phase": bulk_phase(bar)} if bulk else {}
            summary = kg.ingest_facts(path, format=fmt, strict=strict, batch_size=batch_size, progress=progress,
                                      fact_progress=stage_progress(bar)("facts"), **bulk_options)
        resolved = resolve_after_ingest(kg, resolve_with or ("none" if bulk else DEFAULT_RESOLVER), path)
        if hasattr(summary, "resolve"):  # the --json summary names the merges too
            summary.resolve = resolved
    _finish(path, (
        ("format", summary.format), ("lines read", summary.records_read), ("triples read", summary.facts_read),
        ("facts", summary.facts), *new_and_present(summary, "facts", summary.facts, "facts"),
        ("entities", summary.entities), ("values (typed literals)", getattr(summary, "values", 0)),
        ("relations", summary.relations), *embedded_facts_row(summary),
        ("skipped", len(summary.skipped)), ("seconds", f"{summary.seconds:.2f}"),
    ) + bulk_rows(summary), summary, json_out)


@click.command()
@click.option("--edit", "edits", multiple=True, help="An edit id (repeatable).")
@click.option("--batch", "batches", multiple=True, help="Every edit of a batch (repeatable).")
@click.option("--document", "documents", multiple=True, help="A document id, with its passages (repeatable).")
@click.option("--source", "sources", multiple=True, type=click.Path(dir_okay=False),
              help="Everything a file contributed: its edits, documents and stated facts (repeatable; the file "
                   "need not exist any more).")
@click.option("--dry-run", is_flag=True, help="Report what would change and write nothing.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Also write the report as JSON.")
def delete(edits, batches, documents, sources, dry_run, json_out):
    """Delete a source and every fact only it supports.

    Facts a deleted edit superseded are in force again, conflict verdicts of its
    slots are re-applied, and entities and relations nothing uses are removed.
    A fact or passage that a stored run used stays for that run, marked retracted.
    `kgtool cypher -f cypher/analyst/sources.cypher` lists what can be deleted.
    """
    if not (edits or batches or documents or sources):
        raise click.UsageError("give at least one of --edit, --batch, --document, --source")
    with connect() as kg:
        report = kg.delete(edit=list(edits), batch=list(batches), document=list(documents), source=list(sources),
                           dry_run=dry_run)
    print_delete(report, dry_run)
    if json_out:
        write_json(json_out, report.as_dict())
