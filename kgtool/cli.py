"""The `kgtool` command line. Each command parses its arguments and calls the API."""
from __future__ import annotations

import csv
import json
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from kgtool.config import Settings
from kgtool.errors import KgToolError

console = Console()
err_console = Console(stderr=True)
# a pipe or a file gets whole lines: run ids and table cells are not cut or folded at 80 columns
if not console.is_terminal and not os.environ.get("COLUMNS"):
    console = Console(width=1000)


class _DriverWithoutDataFrames:
    """Keeps the Neo4j driver from importing pandas and pyarrow in a CLI process.

    When they are installed the driver imports both while it loads (to accept
    dataframes as parameters and for Result.to_df); kgtool uses neither, and
    they were two thirds of the driver's import time (2.2 of 3.3 s on a busy
    2-core machine), paid by every `kgtool ask`. Only the driver's own optional
    look-up is refused: anything else imports them as usual.
    """

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("pandas", "pyarrow"):
            loading = sys.modules.get("neo4j._optional_deps")
            if loading is not None and getattr(getattr(loading, "__spec__", None), "_initializing", False):
                raise ModuleNotFoundError(f"{name} is not used by kgtool's driver calls", name=name)
        return None


if "neo4j" not in sys.modules:
    sys.meta_path.insert(0, _DriverWithoutDataFrames())


_DEBUG = {"flag": False}  # --debug of the current invocation (click calls the callback every time)


def _debug_requested() -> bool:
    return _DEBUG["flag"] or os.environ.get("KGTOOL_DEBUG", "").strip().lower() not in ("", "0", "false", "no")


def _set_debug(ctx, param, value):
    _DEBUG["flag"] = bool(value)


class KgToolGroup(click.Group):
    """Every failure becomes one message saying how to fix it; --debug adds the traceback.

    kgtool's own errors already say what to do; anything else (the driver, the
    network, the LLM client) is mapped by kgtool.errors.describe, so no command
    ever ends in a raw traceback unless asked for.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.params.append(click.Option(["--debug"], is_flag=True, expose_value=False, is_eager=True,
                                        callback=_set_debug,
                                        help="Print the full traceback of a failure (or set KGTOOL_DEBUG=1)."))

    def invoke(self, ctx):
        from kgtool.errors import describe

        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KeyboardInterrupt:
            err_console.print("[bold red]error:[/] interrupted", highlight=False)
            sys.exit(130)
        except Exception as exc:  # noqa: BLE001 - the one place every failure is worded for a person
            error = describe(exc)
            if _debug_requested():
                import traceback

                traceback.print_exception(exc, file=sys.stderr)
            from rich.markup import escape

            err_console.print(f"[bold red]error:[/] {escape(str(error))}", highlight=False, markup=True,
                              soft_wrap=True)
            sys.exit(2)


def _settings() -> Settings:
    return Settings.load()


def _connect():
    from kgtool.api import KnowledgeGraph

    return KnowledgeGraph.connect(_settings())


@click.group(cls=KgToolGroup)
@click.version_option(package_name="kgtool")
def main():
    """kgtool: multi-hop question answering over edited knowledge, inside Neo4j.

    With NEO4J_URI unset, kgtool runs its own local Neo4j (started on first
    use; see `kgtool db`). Set NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD and
    NEO4J_DATABASE to use any other server (Docker, a cluster, Aura).
    """


# --- db -------------------------------------------------------------------
@main.group()
def db():
    """Manage the local Neo4j server and the schema.

    \b
    The local server's neo4j.conf is rewritten on every start. Your own
    settings go in <KGTOOL_HOME>/neo4j/conf/user.conf (key=value lines),
    merged after kgtool's; keys that would open the server up (non-loopback
    listen addresses, auth off, CSV import from URLs) are refused.
    Plugins: `kgtool db plugins add G:A:V[:classifier]` or KGTOOL_NEO4J_PLUGINS.
    """


def _server():
    from kgtool.graph.server import LocalServer

    settings = _settings()
    if not settings.uses_local_server:
        raise KgToolError(
            f"NEO4J_URI is set ({settings.neo4j_uri}): kgtool does not manage that server. "
            "Unset NEO4J_URI to use the local one."
        )
    return LocalServer(settings)


@db.command()
@click.option("--timeout", default=180.0, show_default=True, help="Seconds to wait for Bolt to answer.")
def start(timeout):
    """Start the local Neo4j (resolving its jars with Maven on first use)."""
    server = _server()
    t0 = time.monotonic()
    with console.status("starting Neo4j ..."):
        started = server.start(timeout=timeout)
    if started:
        console.print(f"Neo4j started on {server.uri} in {time.monotonic() - t0:.1f} s (home {server.home})")
    else:
        console.print(f"Neo4j already running on {server.uri}")


@db.command()
def stop():
    """Stop the local Neo4j gracefully."""
    server = _server()
    console.print("stopped" if server.stop() else "Neo4j was not running")


@db.command()
def status():
    """URI, Neo4j version, pid and store size of the local server."""
    st = _server().status()
    table = Table(show_header=False)
    table.add_row("running", "yes" if st.running else "no")
    table.add_row("uri", st.uri)
    table.add_row("version", st.version or "-")
    table.add_row("pid", str(st.pid or "-"))
    table.add_row("store", f"{st.store_bytes / 1e6:.1f} MB")
    table.add_row("home", str(st.home))
    console.print(table)
    if not st.running:
        sys.exit(1)


@db.command()
@click.option("-n", "--lines", default=40, show_default=True)
def logs(lines):
    """The tail of the local server's logs."""
    click.echo(_server().log_tail(lines))


@db.command()
def init():
    """Apply the schema (constraints, full-text and vector indexes); idempotent."""
    with _connect() as kg:
        n = kg.init_schema()
    console.print(f"schema applied ({n} statements)")


@db.command()
def stats():
    """Node counts by label and relationship counts by type."""
    with _connect() as kg:
        st = kg.stats()
        problems = kg.health().problems()
    for title, counts in (("label", st["nodes"]), ("relationship", st["relationships"])):
        table = Table(title=f"{title}s")
        table.add_column(title)
        table.add_column("count", justify="right")
        for key, count in counts.items():
            table.add_row(key, str(count))
        console.print(table)
    for problem in problems:  # what a killed command left behind (kgtool db doctor)
        err_console.print(f"needs attention: {problem}; run `kgtool db doctor --fix`", markup=False, highlight=False)


@db.group("plugins")
def db_plugins():
    """Plugin jars of the local server (resolved from Maven into <home>/neo4j/plugins).

    \b
    kgtool db plugins add org.neo4j.procedure:apoc-core:5.26.0:core
    kgtool db plugins add G:A:V --procedures 'gds.*'   # namespaces to unrestrict
    kgtool db plugins list | remove G:A
    KGTOOL_NEO4J_PLUGINS=G:A:V[:classifier][=ns.*],... fetches them on start.
    A running server loads a plugin on its next start (--restart restarts it).
    """


def _restart_note(server, restart: bool) -> None:
    if not server.pid():
        console.print("the server loads it on its next start (`kgtool db start`)")
    elif restart:
        with console.status("restarting Neo4j ..."):
            server.stop()
            server.start()
        console.print(f"Neo4j restarted on {server.uri}")
    else:
        console.print("[yellow]Neo4j is running: restart it to apply this[/] "
                      "(`kgtool db stop && kgtool db start`, or pass --restart)", highlight=False)


@db_plugins.command("add")
@click.argument("coordinate")
@click.option("--procedures", default=None,
              help="Procedure namespaces to unrestrict, e.g. 'apoc.*|apoc.meta.*' "
                   "(default: the artifact's first word, apoc-core -> apoc.*).")
@click.option("--restart", is_flag=True, help="Restart a running server so it loads the plugin now.")
def plugins_add(coordinate, procedures, restart):
    """Fetch a plugin jar by Maven coordinates G:A:V[:classifier] and record it."""
    from kgtool.graph.plugins import parse_plugin

    server = _server()
    spec = parse_plugin(coordinate, procedures, where="kgtool db plugins add")
    with console.status(f"resolving {spec.coordinate} with Maven ..."):
        entry = server.plugins().add(spec)
    console.print(f"added {entry['coordinate']} -> {server.plugins_dir / entry['jar']} "
                  f"(unrestricted: {', '.join(entry['procedures'])})")
    _restart_note(server, restart)


@db_plugins.command("list")
def plugins_list():
    """Installed plugins, their jars and unrestricted procedure namespaces."""
    server = _server()
    entries = server.plugins().entries()
    if not entries:
        console.print(f"no plugins in {server.plugins_dir}")
        return
    table = Table()
    for column in ("coordinate", "jar", "procedures", "from", "present"):
        table.add_column(column)
    for e in entries:
        table.add_row(e["coordinate"], e["jar"], ", ".join(e["procedures"]),
                      "KGTOOL_NEO4J_PLUGINS" if e.get("origin") == "setting" else "db plugins add",
                      "yes" if (server.plugins_dir / e["jar"]).is_file() else "no")
    console.print(table)


@db_plugins.command("remove")
@click.argument("name")
@click.option("--restart", is_flag=True, help="Restart a running server so it unloads the plugin now.")
def plugins_remove(name, restart):
    """Remove a plugin (G:A or G:A:V[:classifier]) and its jar."""
    server = _server()
    entry = server.plugins().remove(name)
    console.print(f"removed {entry['coordinate']}")
    _restart_note(server, restart)


# --- ingest ---------------------------------------------------------------
@main.group()
def ingest():
    """Load corpora into the graph."""


@contextmanager
def _ingest_progress(unit: str):
    """A progress bar for an ingest, with its rate in `unit`/s; yields (bar, progress(done, total))."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("ingest"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                  TimeElapsedColumn(), console=err_console) as bar:
        task = bar.add_task(unit, total=None, rate="")
        t0 = time.monotonic()

        def progress(done, total):
            rate = done / max(time.monotonic() - t0, 1e-9)
            bar.update(task, completed=done, total=total, rate=f"{rate:,.0f} {unit}/s")

        yield bar, progress


def _report_ingest(path, rows, summary, json_out) -> None:
    """Print an ingest summary and its skipped records, write the JSON; exit 1 if records were skipped."""
    table = Table(title=f"ingested {path}", show_header=False)
    for key, value in rows:
        table.add_row(key, str(value))
    console.print(table)
    for bad in summary.skipped:
        err_console.print(f"[yellow]skipped[/] {bad}", highlight=False, markup=True)
    if json_out:
        Path(json_out).write_text(json.dumps(summary.as_dict(), indent=2, ensure_ascii=False))
    if summary.skipped:
        sys.exit(1)


def _bulk_phase(bar):
    """Announce each step of a bulk load above the progress bar."""
    return lambda name: bar.console.print(f"[dim]bulk:[/] {name} ...", highlight=False)


def _bulk_rows(summary) -> tuple:
    """A bulk load's seconds per phase and its importer report, as extra summary rows."""
    phases = getattr(summary, "phases", None)
    if phases is None:
        return ()
    return (("bulk phases (s)", ", ".join(f"{k} {v:.2f}" for k, v in phases.seconds.items())),
            ("import report", phases.import_report))


@ingest.command("edits")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["mquake", "jsonl"]), default=None,
              help="Input format (default: from the extension, .json = MQuAKE, .jsonl = kgtool edits).")
@click.option("--extractor", default="anchor", show_default=True,
              help="anchor (no model), rebel (Babelscape/rebel-large), llm, auto, or a REBEL model directory.")
@click.option("--no-eatr", is_flag=True, help="Load raw extracted candidates (the paper's ablation).")
@click.option("--strict", is_flag=True, help="Validate everything first; write nothing if any record is bad.")
@click.option("--batch", default=None, help="Batch name stored on every edit (default: the file name); scopes answering.")
@click.option("--batch-size", default=2000, show_default=True, help="Edits per transaction.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Also write the summary as JSON.")
@click.option("--conflicts", type=click.Choice(["latest", "keep-all", "fail"]), default="latest", show_default=True,
              help="Edits that set one (subject, relation) to different objects: latest = the later edit (later "
                   "run, then later line) wins and the earlier is marked superseded-by-conflict; keep-all = both "
                   "stay in force, flagged; fail = refuse the file and write nothing.")
@click.option("--bulk", is_flag=True,
              help="Load into an EMPTY local store with Neo4j's offline importer (neo4j-admin database import "
                   "full): much faster for large files; stops and restarts the local server; any bad line "
                   "refuses the whole file before anything changes.")
def ingest_edits_cmd(path, fmt, extractor, no_eatr, strict, batch, batch_size, json_out, conflicts, bulk):
    """Ingest a knowledge-edit corpus (MQuAKE JSON or kgtool JSONL) into Neo4j.

    Each edit asserts its new fact and supersedes the pre-edit one; EATR keeps
    only extracted triples whose endpoints match the edit and whose relation is
    consistent with it. Re-running the same file changes nothing. Bad records
    are skipped and listed (file:line and reason) and the exit code is 1.
    """
    with _connect() as kg:
        kg.init_schema()
        with _ingest_progress("edits") as (bar, progress):
            bulk_options = {"bulk": True, "phase": _bulk_phase(bar)} if bulk else {}
            summary = kg.ingest_edits(path, format=fmt, extractor=extractor, eatr=not no_eatr, strict=strict,
                                      batch=batch, batch_size=batch_size, progress=progress, conflicts=conflicts,
                                      **bulk_options)
    _report_ingest(path, (
        ("records read", summary.records_read), ("edits loaded", summary.edits_loaded),
        ("base facts", summary.base_facts), ("candidates", summary.candidates), ("kept", summary.kept),
        ("rejected", ", ".join(f"{k}: {v}" for k, v in sorted(summary.rejected.items())) or "0"),
        ("facts written", summary.facts), ("conflicts", summary.conflicts),
        ("superseded by conflict", f"{summary.superseded_by_conflict} (policy {summary.conflict_policy})"),
        ("skipped", len(summary.skipped)), ("seconds", f"{summary.seconds:.2f}"),
    ) + _bulk_rows(summary), summary, json_out)


@ingest.command("docs")
@click.argument("path", type=click.Path(exists=True))
@click.option("--format", "fmt", type=click.Choice(["hotpotqa", "musique", "2wiki", "jsonl", "text"]), default=None,
              help="hotpotqa ({title: [sentences]}), musique / 2wiki ([{title, text}]), jsonl ({id, title?, text} "
                   "a line) or text (a .txt file or a directory of them). Default: text for a directory or .txt, "
                   "jsonl for .jsonl.")
@click.option("--extractor", default="mentions", show_default=True,
              help="mentions (no model: linked entity mentions and the phrase joining them), rebel, llm.")
@click.option("--strict", is_flag=True, help="Validate everything first; write nothing if any record is bad.")
@click.option("--batch-size", default=500, show_default=True, help="Passages per transaction.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Also write the summary as JSON.")
@click.option("--on-duplicate", type=click.Choice(["merge", "error", "skip"]), default=None,
              help="A record naming a document already read, with other text: merge it as more passages "
                   "(default for title formats), error (default for jsonl) or skip it. Each is counted and listed.")
def ingest_docs_cmd(path, fmt, extractor, strict, batch_size, json_out, on_duplicate):
    """Ingest a document collection (FILE or DIR) as Documents, Passages and the facts read from them.

    Passages keep their text once with sentence boundaries, and are indexed for
    retrieval (full-text, and an embedding from the graph's embedder); triples extracted from each passage are linked to the
    same Entity nodes as edits and fact files, and (:Passage)-[:SUPPORTS]->(:Fact)
    records where each came from. Re-running the same file changes nothing.
    Bad records are skipped and listed (file:line or file:title) and the exit code is 1.
    """
    with _connect() as kg:
        kg.init_schema()
        with _ingest_progress("passages") as (bar, progress):
            embedding = None

            def embed_progress(done, total):
                nonlocal embedding
                if embedding is None:
                    embedding = bar.add_task("embedding", total=total, rate="embedding passages")
                bar.update(embedding, completed=done, total=total)

            summary = kg.ingest_docs(path, format=fmt, extractor=extractor, strict=strict, batch_size=batch_size,
                                     progress=progress, embed_progress=embed_progress, on_duplicate=on_duplicate)
    for note in [*(f"duplicate {n}" for n in summary.duplicates), *(f"warning: {n}" for n in summary.oversize)]:
        err_console.print(note, highlight=False, markup=False, emoji=False)
    _report_ingest(path, (
        ("format", summary.format), ("extractor", summary.extractor), ("documents", summary.documents),
        ("passages", summary.passages), ("facts", summary.facts),
        ("facts per passage", f"{summary.facts_per_passage:.2f}"), ("entities", summary.entities),
        ("relations", summary.relations), ("passages embedded", summary.passages_embedded),
        (f"duplicates ({summary.on_duplicate})", len(summary.duplicates)), ("repeats (same text)", summary.repeats),
        ("skipped", len(summary.skipped)), ("seconds", f"{summary.seconds:.2f}"),
    ), summary, json_out)


@ingest.command("facts")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["tsv", "jsonl", "nt"]), default=None,
              help="tsv (head, relation, tail[, evidence] a line), jsonl ({head, relation, tail, evidence?, "
                   "head_id?, tail_id?, relation_id?}) or nt (N-Triples). Default: from the extension "
                   "(.tsv/.txt, .jsonl, .nt).")
@click.option("--strict", is_flag=True, help="Validate everything first; write nothing if any line is bad.")
@click.option("--batch-size", default=5000, show_default=True, help="Facts per transaction.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Also write the summary as JSON.")
@click.option("--bulk", is_flag=True,
              help="Load into an EMPTY local store with Neo4j's offline importer (neo4j-admin database import "
                   "full): much faster for large files; stops and restarts the local server; any bad line "
                   "refuses the whole file before anything changes.")
def ingest_facts_cmd(path, fmt, strict, batch_size, json_out, bulk):
    """Ingest a plain knowledge graph (triples) as base facts stated by the file.

    IRIs and names with underscores get readable names (the original kept as an
    alias); entities with the same name or Wikidata id are shared with edits and
    documents. Re-running the same file changes nothing; `kgtool delete --source
    FILE` removes what only this file stated. Bad lines are skipped and listed
    (file:line and reason) and the exit code is 1.
    """
    with _connect() as kg:
        kg.init_schema()
        with _ingest_progress("facts") as (bar, progress):
            bulk_options = {"bulk": True, "phase": _bulk_phase(bar)} if bulk else {}
            summary = kg.ingest_facts(path, format=fmt, strict=strict, batch_size=batch_size, progress=progress,
                                      **bulk_options)
    _report_ingest(path, (
        ("format", summary.format), ("lines read", summary.records_read), ("triples read", summary.facts_read),
        ("facts", summary.facts), ("entities", summary.entities), ("relations", summary.relations),
        ("skipped", len(summary.skipped)), ("seconds", f"{summary.seconds:.2f}"),
    ) + _bulk_rows(summary), summary, json_out)


# --- deletion ---------------------------------------------------------------
@main.command()
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
    with _connect() as kg:
        report = kg.delete(edit=list(edits), batch=list(batches), document=list(documents), source=list(sources),
                           dry_run=dry_run)
    title = "would delete (dry run, nothing written)" if dry_run else "deleted"
    table = Table(title=title, show_header=False)
    for key, value in (
        ("edits", len(report.edits)), ("documents", len(report.documents)), ("source files", len(report.sources)),
        ("passages deleted", report.passages_deleted), ("passages retracted", report.passages_retracted),
        ("facts deleted", len(report.facts_deleted)), ("facts retracted (used by runs)", len(report.facts_retracted)),
        ("facts in force again", len(report.facts_restored)), ("fact status changes", len(report.status_changes)),
        ("edit verdict changes", len(report.edit_changes)), ("entities deleted", len(report.entities_deleted)),
        ("relations deleted", len(report.relations_deleted)),
    ):
        table.add_row(key, str(value))
    console.print(table)
    for f in report.facts_deleted[:20]:
        console.print(f"  - {f['head']} | {f['relation']} | {f['tail']}", highlight=False, markup=False)
    for c in report.status_changes[:20]:
        console.print(f"  {c['fact_id']}: {c['before']} -> {c['after']}", highlight=False, markup=False)
    for c in report.edit_changes[:20]:
        console.print(f"  edit {c['edit_id']}: {c['before']} -> {c['after']}", highlight=False, markup=False)
    if json_out:
        Path(json_out).write_text(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))


# --- answering -------------------------------------------------------------
def _scope_option(value: str | None):
    """--scope all | case ids separated by commas | batch:NAME[,NAME]."""
    if not value or value == "all":
        return "all"
    if value.startswith("batch:"):
        return {"batches": [v for v in value[6:].split(",") if v]}
    return {"cases": [v for v in value.split(",") if v]}


@main.command()
@click.argument("question", required=False)
@click.option("-f", "--file", "file_", type=click.Path(exists=True, dir_okay=False),
              help="Answer every question of a JSONL file ({\"question\": ..., optional \"answer\"}).")
@click.option("--agents", type=click.Choice(["offline", "llm"]), default=None,
              help="Agent family (default: llm when an endpoint is configured, else offline).")
@click.option("--method", default="care", show_default=True, help="A registered method (see `kgtool methods`).")
@click.option("--set", "settings_", multiple=True, metavar="KEY=VALUE",
              help="A setting of the method, e.g. --set tau_max=1 (repeatable; values parsed as JSON when they can be).")
@click.option("--scope", default="all", show_default=True,
              help="Edits in force: all, case ids (1,2,3) or batch:NAME.")
@click.option("--json", "as_json", is_flag=True, help="Print answers as JSON.")
def ask(question, file_, agents, method, settings_, scope, as_json):
    """Answer a multi-hop QUESTION (or every question in -f FILE) and print the chain.

    Each reasoning path is stored in Neo4j; see it with `kgtool trace show RUN_ID`.
    With -f, an expected "answer" in the file is checked and the exit code is 1
    if any answer differs.
    """
    if bool(question) == bool(file_):
        raise click.UsageError("give either QUESTION or -f FILE")
    items = [{"question": question}] if question else _read_questions(file_)
    wrong = 0
    with _connect() as kg:
        for item in items:
            result = kg.answer(item["question"], method=method, agents=agents, scope=_scope_option(scope),
                               **_parse_params(settings_, "--set"))
            expected = item.get("answer")
            if as_json:
                click.echo(json.dumps(result.as_dict(), ensure_ascii=False, default=str))
            else:
                _print_answer(result)
            if expected is not None:
                from kgtool.eval.mquake import matches

                ok = matches(result.answer, expected, item.get("aliases", []))
                wrong += not ok
                if not as_json:
                    console.print(f"   expected {expected}: " + ("[green]correct[/]" if ok else "[red]wrong[/]"))
    if wrong:
        sys.exit(1)


def _candidate_text(c: dict) -> str:
    if c.get("kind") == "passage":
        return f"[{c.get('relation') or 'passage'}] {(c.get('evidence') or '')[:120]}"
    return f"{c['head']} --{c['relation']}--> {c['tail']}"


def _figure(value) -> str:
    """Three decimals, and <0.001 rather than 0.000 or 1.397e-06 for a tiny probability."""
    if not isinstance(value, (int, float)):
        return "-"
    return "<0.001" if 0 < value < 0.0005 else f"{value:.3f}"


def _read_questions(path) -> list[dict]:
    items = []
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise KgToolError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from exc
        if not isinstance(item, dict) or not isinstance(item.get("question"), str) or not item["question"].strip():
            raise KgToolError(f"{path}:{lineno}: expected an object with a non-empty \"question\" string")
        items.append(item)
    return items


def _print_answer(result):
    console.print(f"[bold]Q:[/] {result.question}", highlight=False)
    console.print(f"[bold]A:[/] {result.answer or '(no answer)'}  [dim]({result.status}, "
                  f"{result.latency_ms:.0f} ms, {result.tokens} tokens, {result.backtracks} backtrack(s), "
                  f"run {result.run_id})[/]", highlight=False)
    for step in result.chain:
        if step.get("fact_id"):
            line = f"  {step['hop']}. {step['head']} --{step['relation']}--> {step['tail']}"
            console.print(line, highlight=False)
            console.print(f"     [dim]{step['evidence']}  (N_eff {step['neff'] or 0:.2f}, {step['state']})[/]",
                          highlight=False)
        else:
            console.print(f"  {step['hop']}. {step['question']} -> {step['answer'] or '?'} [dim](generated)[/]",
                          highlight=False)


@main.command()
def methods():
    """List the registered reasoning methods and agent families."""
    from kgtool.reason.agents.factory import AGENTS
    from kgtool.reason.methods import METHODS

    table = Table(title="methods (kgtool ask --method NAME, --set KEY=VALUE)")
    for col in ("method", "version", "what it does"):
        table.add_column(col, overflow="fold")
    for entry in METHODS.entries():
        table.add_row(entry.name, entry.version, entry.description)
    console.print(table)
    console.print("agents: " + ", ".join(f"{e.name} ({e.description})" for e in AGENTS.entries()), highlight=False)


@main.group()
def trace():
    """Inspect stored reasoning runs."""


@trace.command("show")
@click.argument("run_id")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), help="Write an interactive page of the run.")
def trace_show(run_id, html_path):
    """Print a run's chain: candidates, scores, N_eff, verdicts and backtracks."""
    with _connect() as kg:
        data = kg.trace(run_id)
    if data is None:
        raise KgToolError(f"no run {run_id!r} in the graph; list runs with: kgtool cypher -f cypher/analyst/runs.cypher")
    run = data["run"]
    console.print(f"[bold]{run['id']}[/] {run.get('method')}/{run.get('agents')} scope={run.get('scope')} "
                  f"status={run.get('status')} {run.get('latency_ms') or 0:.0f} ms tokens={run.get('tokens')}",
                  highlight=False)
    console.print(f"Q: {run.get('question')}\nA: {run.get('answer')}", highlight=False)
    for step in data["steps"]:
        mark = "*" if step.get("in_chain") else " "
        console.print(f"{mark} hop {step['hop']} attempt {step['attempt']}: {step['query']}  "
                      f"[dim]N_eff={step['neff'] if step['neff'] is None else round(step['neff'], 3)} "
                      f"({step['state']}, gamma {step['gamma']})[/]", highlight=False)
        from kgtool.reason.trace_html import by_score

        table = Table(show_edge=False, pad_edge=False)
        for col in ("retrieval rank", "candidate", "score", "p", "scores", "passes", "chosen"):
            table.add_column(col, overflow="fold")
        # best score first: the retrieval rank is shown as stored, but a judge may reorder it
        for c in by_score(step["candidates"]):
            named = " ".join(f"{k}={v:.2f}" for k, v in sorted(c["scores"].items()) if isinstance(v, (int, float)))
            table.add_row(str(c["rank"]), _candidate_text(c), _figure(c["score"]), _figure(c["p"]), named,
                          "yes" if c["passes"] else "no",
                          "discarded" if c["discarded"] else ("<-" if c["fact_id"] == step["chosen"] else ""))
        console.print(table)
        if step.get("generated"):
            console.print(f"    generated answer: {step['answer']}", highlight=False)
        for v in step["verdicts"]:
            verdict = "valid" if v["valid"] else f"REJECTED ({v['error_type']}, hop {v['failed_hop']})"
            console.print(f"    {v.get('taxonomy') or 'judge'} round {v['round']}: {verdict} {v['explanation'] or ''}",
                          highlight=False)
    for b in data["backtracks"]:
        console.print(f"{b.get('kind') or 'backtrack'} {b['from_step']} -> {b['to_step']}: {b['reason']}",
                      highlight=False)
    for p in data.get("plans") or []:  # plan versions of methods that revise a whole plan (VoG)
        console.print(f"plan v{p['version']} ({p.get('arm') or 'draft'}"
                      f"{'' if p.get('parent_version') is None else ', from v' + str(p['parent_version'])}): "
                      + " -> ".join(f"{a} [{r or '?'}: {e or '?'}]" for a, r, e in
                                    zip(p["actions"] or [], p["relations"] or [], p["expected"] or [])),
                      highlight=False, markup=False)
    for k in data.get("constraints") or []:  # atomic constraints of methods that ground a plan of them (C2RAG)
        binding = ", ".join(f"{b} ({w:.2f})" for b, w in zip(k.get("binding") or [], k.get("binding_weights") or []))
        neff = "-" if k.get("neff") is None else f"{k['neff']:.3f}"
        console.print(f"constraint {k['index'] + 1}: {k['pattern']}  variants: {'; '.join(k.get('variants') or [])}  "
                      f"anchors: {', '.join(k.get('anchors') or []) or '-'}  {k['state']}"
                      f"{' (' + k['source'] + ')' if k.get('source') else ''} N_eff={neff}  "
                      f"{k.get('variable') or ''} = {binding or '-'}", highlight=False, markup=False)
    if html_path:
        from kgtool.reason.trace_html import render_trace_html

        Path(html_path).write_text(render_trace_html(data), encoding="utf-8")
        console.print(f"wrote {html_path}")


from kgtool.eval.qa_data import FORMATS as QA_FORMATS  # light: only the --format choices


@main.group("eval")
def eval_():
    """Evaluate methods side by side on benchmarks (MQuAKE, multi-hop QA)."""


def _perturb_spec(ctx, param, value):
    from kgtool.eval.perturb import PerturbSpec

    try:
        return PerturbSpec.parse(value)
    except KgToolError as exc:
        raise click.BadParameter(str(exc)) from None


def _eval_options(what: str):
    """The options both eval commands share; `what` is what --limit counts."""
    options = [
        click.option("--method", "methods", default="all", show_default=True, metavar="M1,M2,...|all",
                     help="Methods to compare on the same questions, comma-separated; all = every registered "
                          "method (see `kgtool methods`)."),
        click.option("--agents", type=click.Choice(["offline", "llm"]), default=None,
                     help="Agent family (default: llm when an endpoint is configured, else offline)."),
        click.option("--workers", default=4, show_default=True, help="Questions answered in parallel."),
        click.option("--limit", type=int, default=None, help=f"Only the first N {what}."),
        click.option("--perturb", callback=_perturb_spec, default=None, metavar="drop=F,distract=F,seed=N",
                     help="Answer on a perturbed view: hide a seeded fraction (drop) of the facts in force and "
                          "add plausible wrong facts (distract, a fraction of the facts in force). Stored facts "
                          "are not changed; the view is removed afterwards."),
        click.option("--keep-perturbation", is_flag=True,
                     help="Keep the perturbation after the run (to inspect it; remove it later with "
                          "`kgtool eval remove-perturbation ID`)."),
        click.option("--json", "json_out", type=click.Path(dir_okay=False),
                     help="Write the report as JSON: per method under methods.<name> (with one method also at "
                          "top level), with every question's result."),
        click.option("--html", "html_out", type=click.Path(dir_okay=False),
                     help="Write a self-contained HTML page: accuracy by method and hop count, latency and "
                          "backtracks per method."),
    ]

    def decorate(fn):
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate


def _run_eval(evaluate, json_out, html_out):
    """Run `evaluate(kg, progress)` under a progress bar, print the side-by-side table, write the files."""
    from rich.measure import Measurement
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from kgtool.eval.report import rich_table

    with _connect() as kg:
        with Progress(TextColumn("answering {task.fields[method]}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=err_console) as bar:
            task = bar.add_task("q", total=None, method="")
            report = evaluate(kg, lambda done, total, method: bar.update(task, completed=done, total=total,
                                                                         method=method))
    data = report.as_dict()
    table = rich_table(data)
    # a pipe or a file gets the table at its natural width instead of squeezed into 80 columns
    natural = Measurement.get(console, console.options.update_width(1000), table).maximum
    (console if console.is_terminal else Console(width=max(console.width, natural))).print(table)
    for name, summary in data["methods"].items():
        console.print(f"{name}: questions {summary['questions']}, {summary['seconds']:.1f} s", highlight=False)
    for note in data["notes"]:
        err_console.print(f"[yellow]note[/] {note}", highlight=False)
    pert = data["perturbation"]
    if pert:
        fate = "removed" if pert["removed"] else f"kept (remove it with: kgtool eval remove-perturbation {pert['id']})"
        console.print(f"perturbation {pert['id']}: {pert['hidden']} facts hidden, {pert['added']} distractors "
                      f"added; {fate}", highlight=False)
    if json_out:
        Path(json_out).write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
        console.print(f"wrote {json_out}")
    if html_out:
        from kgtool.eval.report_html import render_report_html

        Path(html_out).write_text(render_report_html(data), encoding="utf-8")
        console.print(f"wrote {html_out}")


@eval_.command("mquake")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--scope", type=click.Choice(["1", "k", "all"]), default="all", show_default=True,
              help="Edits in force per case: its own (1), its group of --k cases (k), or all.")
@click.option("--k", default=100, show_default=True, help="Group size for --scope k.")
@_eval_options("cases")
def eval_mquake(path, scope, k, methods, agents, workers, limit, perturb, keep_perturbation, json_out, html_out):
    """Acc, Hop-Acc, EM and F1 of every method on an MQuAKE file (ingest it first).

    Acc counts a case when any of its questions gets the new answer or an
    alias; Hop-Acc when some question's chain matches every gold hop; both
    also by hop count. EM and F1 are per question (SQuAD normalisation).
    One row per method: accuracy, latency p50/p90, tokens and backtracks per
    question, run statuses.
    """
    _run_eval(lambda kg, progress: kg.evaluate_mquake(
        path, methods=methods, scope=scope, k=k, agents=agents, workers=workers, limit=limit, perturb=perturb,
        keep_perturbation=keep_perturbation, progress=progress), json_out, html_out)


@eval_.command("qa")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(QA_FORMATS), default=None,
              help="jsonl ({\"id\", \"question\", \"answers\": [...], \"hops\"?}), hotpotqa, musique, 2wiki, or "
                   "pathquestion (question<TAB>answers[<TAB>path]). Default: from the extension (.jsonl, .txt).")
@_eval_options("questions")
def eval_qa(path, fmt, methods, agents, workers, limit, perturb, keep_perturbation, json_out, html_out):
    """EM, F1, Acc and (where the data has gold hops) Hop-Acc of every method on a multi-hop QA file.

    Answers are compared after SQuAD normalisation (lowercase, no punctuation
    or articles) with the gold answer and its aliases; Acc is exact match.
    Every edit in the graph is in force. A bad record stops the run before
    any question is answered, and every bad line is listed (file:line).
    """
    _run_eval(lambda kg, progress: kg.evaluate_qa(
        path, format=fmt, methods=methods, agents=agents, workers=workers, limit=limit, perturb=perturb,
        keep_perturbation=keep_perturbation, progress=progress), json_out, html_out)


@eval_.command("retrieval")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["hotpotqa", "musique"]), required=True,
              help="The question file's format; its corpus must be in the graph (kgtool ingest docs).")
@click.option("-k", "k", default="2,5,10", show_default=True, metavar="K1,K2,...", help="Cut-offs for recall@k.")
@click.option("--retriever", "retrievers", default="all", show_default=True, metavar="R1,R2,...|all",
              help="kgtool retrievers to compare with the BM25 baseline: fulltext, fulltext+bm25, dense, hybrid, "
                   "dense+linked, hybrid+linked, hybrid+cross_encoder.")
@click.option("--limit", type=int, default=None, help="Only the first N questions.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False),
              help="Write the report as JSON, with every question's top passages.")
def eval_retrieval(path, fmt, k, retrievers, limit, json_out):
    """Supporting-passage recall@k of each passage retriever next to a plain BM25 baseline (same run).

    The baseline ranks every stored passage with BM25 (rank-bm25, no index);
    kgtool's retrievers read pools through Cypher (full-text and vector
    indexes, linked documents) and rank them with named scorers. A retriever
    whose model is not installed is listed as unavailable. For MuSiQue it also
    reports how many decomposition answers became entities linked to their passage.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with _connect() as kg:
        with Progress(TextColumn("retrieving {task.fields[name]}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=err_console) as bar:
            task = bar.add_task("q", total=None, name="")
            report = kg.evaluate_retrieval(path, format=fmt, k=k, retrievers=retrievers, limit=limit,
                                           progress=lambda done, total, name: bar.update(
                                               task, completed=done, total=total, name=name))
    data = report.as_dict()
    table = Table(title=f"supporting-passage recall, {data['questions']} questions, "
                        f"{data['passages_in_graph']} passages in the graph")
    table.add_column("retriever")
    for kk in data["k"]:
        table.add_column(f"R@{kk}", justify="right")
    table.add_column("p50 ms", justify="right")
    for name, r in data["retrievers"].items():
        if r["error"]:
            table.add_row(name, *["-" for _ in data["k"]], "-")
            continue
        mark = " (best)" if name == data["best"] else ""
        table.add_row(name + mark, *[f"{100 * r['recall'][f'@{kk}']:.1f}" for kk in data["k"]],
                      f"{r['latency_ms_p50']:.0f}")
    console.print(table)
    for name, r in data["retrievers"].items():
        if r["error"]:
            err_console.print(f"[yellow]unavailable[/] {name}: {r['error']}", highlight=False)
    if data["gold_missing"]:
        err_console.print(f"[yellow]note[/] {data['gold_missing']} of {data['gold_passages']} gold passages are not "
                          "in the graph (counted as missed)", highlight=False)
    if data["best"]:
        console.print(f"best: {data['best']}, recall@{data['primary_k']} {data['best_minus_baseline'] * 100:+.1f} "
                      "points over the BM25 baseline", highlight=False)
    link = data["linking"]
    if link:
        console.print(f"linking: {link['answers_linked']} of {link['hops']} decomposition answers are entities "
                      f"linked to their passage ({100 * (link['answers_linked_share'] or 0):.1f}%); "
                      f"{link['facts_per_passage']} facts per document passage", highlight=False)
    if json_out:
        Path(json_out).write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
        console.print(f"wrote {json_out}")


@eval_.command("remove-perturbation")
@click.argument("perturbation_id")
def eval_remove_perturbation(perturbation_id):
    """Remove a perturbation kept with --keep-perturbation (its distractors go; stored facts are untouched)."""
    with _connect() as kg:
        removed = kg.remove_perturbation(perturbation_id)
    console.print(f"removed perturbation {perturbation_id} and its {removed} distractor fact(s)", highlight=False)


@main.command("verify-benchmark")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(QA_FORMATS), default=None,
              help="The question file's format (as for `kgtool eval qa`). Default: from the extension.")
@click.option("--max-hops", default=4, show_default=True, type=click.IntRange(1, 6),
              help="Longest chain of facts that counts as a grounded path.")
@click.option("--out", type=click.Path(dir_okay=False),
              help="Where the verifiable questions go (kgtool QA JSON lines). Default: ./<stem>.verified.jsonl")
@click.option("--summary", type=click.Path(dir_okay=False),
              help="Where the summary goes (JSON, every question's reason). Default: ./<stem>.verify.json")
@click.option("--limit", type=int, default=None, help="Only the first N questions.")
def verify_benchmark_cmd(path, fmt, max_hops, out, summary, limit):
    """SAFE's train-time filter: keep the questions whose answer the stored graph can reach.

    A question is verifiable when a chain of facts in force (at most
    --max-hops, either direction) joins an entity named in the question to a
    gold answer. Ingest the benchmark's corpus first (kgtool ingest docs).
    Prints the share removed and why; writes the verifiable subset (readable
    with `kgtool eval qa OUT --format jsonl`) and a JSON summary.
    """
    with _connect() as kg:
        result = kg.verify_benchmark(path, format=fmt, max_hops=max_hops, out=out, summary=summary, limit=limit)
    table = Table(title=f"verify-benchmark {path}", show_header=False)
    for key, value in (("format", result.format), ("max hops", result.max_hops), ("questions", result.total),
                       ("verifiable", result.verifiable), ("removed", result.removed),
                       ("share removed", f"{result.share_removed:.1%}"),
                       *((f"  {reason}", n) for reason, n in sorted(result.reasons.items()) if reason != "verifiable"),
                       ("subset", result.out), ("summary", result.summary)):
        table.add_row(key, str(value))
    console.print(table)


# --- cypher ---------------------------------------------------------------
def _parse_params(pairs: tuple[str, ...], option: str = "--param") -> dict:
    params = {}
    for pair in pairs:
        if "=" not in pair:
            raise click.BadParameter(f"{pair!r}: expected key=value", param_hint=option)
        key, raw = pair.split("=", 1)
        try:
            params[key] = json.loads(raw)
        except json.JSONDecodeError:
            params[key] = raw
    return params


@main.command()
@click.argument("query", required=False)
@click.option("-f", "--file", "file_", type=click.Path(exists=True, dir_okay=False), help="Read the query from a file.")
@click.option("-p", "--param", "params", multiple=True, help="key=value; the value is parsed as JSON when it can be.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True)
@click.option("--timeout", default=None, help="Stop the query after this long (30s, 2m, 0 for no limit); "
                                              "default KGTOOL_CONSOLE_TIMEOUT or 60s.")
def cypher(query, file_, params, fmt, timeout):
    """Run a read-only Cypher QUERY (or -f FILE) against the graph.

    Only reads of the graph run: writes, LOAD CSV, administration commands
    (users, transactions, settings) and procedures outside a read-only set
    are refused with the reason (exit code 2) and change nothing. Prefix
    EXPLAIN to see the plan without running, PROFILE to run and see it.
    Ready-made queries live in cypher/analyst/, e.g.:

        kgtool cypher -f cypher/analyst/backtracks.cypher
    """
    from kgtool.graph import queries

    if bool(query) == bool(file_):
        raise click.UsageError("give either QUERY or -f FILE")
    text = queries.load_file(file_).text if file_ else query
    params = _parse_params(params)
    with _connect() as kg:
        result = kg.db.console(text, params, timeout=timeout)
    if result.profiled or result.plan is None:
        _print_rows(result.keys, result.rows, fmt)
    if result.plan is not None:
        from kgtool.graph.console import plan_lines

        # after PROFILE's rows in json/csv the plan goes to stderr, so stdout stays machine-readable
        out = err_console if result.profiled and fmt != "table" else console
        out.print("profile:" if result.profiled else "plan (EXPLAIN: the query was not run):", highlight=False)
        for line in plan_lines(result.plan, profiled=result.profiled):
            out.print(line, highlight=False, markup=False, soft_wrap=True)


def _print_rows(keys, rows, fmt):
    if fmt == "json":
        click.echo(json.dumps(rows, default=str, ensure_ascii=False, indent=2))
    elif fmt == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=keys)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(v) for k, v in row.items()})
    else:
        table = Table()
        for key in keys:
            table.add_column(key)
        for row in rows:
            table.add_row(*(_cell(row.get(k)) for k in keys))
        console.print(table)
        console.print(f"{len(rows)} row(s)")


def _cell(value) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(value, default=str, ensure_ascii=False)
    return "" if value is None else str(value)


from kgtool.cli_doctor import doctor  # noqa: E402  (kgtool db doctor)

db.add_command(doctor)

if __name__ == "__main__":
    main()
