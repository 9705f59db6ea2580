"""The `kgtool` command line. Each command parses its arguments and calls the API."""
from __future__ import annotations

import csv
import json
import sys
import time
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from kgtool.config import Settings
from kgtool.errors import KgToolError

console = Console()
err_console = Console(stderr=True)


class KgToolGroup(click.Group):
    """Print KgToolError messages plainly (they say how to fix the problem)."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KgToolError as exc:
            err_console.print(f"[bold red]error:[/] {exc}", highlight=False, markup=True)
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
    """Manage the local Neo4j server and the schema."""


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
    for title, counts in (("label", st["nodes"]), ("relationship", st["relationships"])):
        table = Table(title=f"{title}s")
        table.add_column(title)
        table.add_column("count", justify="right")
        for key, count in counts.items():
            table.add_row(key, str(count))
        console.print(table)


# --- ingest ---------------------------------------------------------------
@main.group()
def ingest():
    """Load corpora into the graph."""


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
def ingest_edits_cmd(path, fmt, extractor, no_eatr, strict, batch, batch_size, json_out):
    """Ingest a knowledge-edit corpus (MQuAKE JSON or kgtool JSONL) into Neo4j.

    Each edit asserts its new fact and supersedes the pre-edit one; EATR keeps
    only extracted triples whose endpoints match the edit and whose relation is
    consistent with it. Re-running the same file changes nothing. Bad records
    are skipped and listed (file:line and reason) and the exit code is 1.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with _connect() as kg:
        kg.init_schema()
        with Progress(TextColumn("ingest"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), console=err_console) as bar:
            task = bar.add_task("edits", total=None, rate="")
            t0 = time.monotonic()

            def progress(done, total):
                rate = done / max(time.monotonic() - t0, 1e-9)
                bar.update(task, completed=done, total=total, rate=f"{rate:,.0f} edits/s")

            summary = kg.ingest_edits(path, format=fmt, extractor=extractor, eatr=not no_eatr, strict=strict,
                                      batch=batch, batch_size=batch_size, progress=progress)
    table = Table(title=f"ingested {path}", show_header=False)
    for key, value in (
        ("records read", summary.records_read), ("edits loaded", summary.edits_loaded),
        ("base facts", summary.base_facts), ("candidates", summary.candidates), ("kept", summary.kept),
        ("rejected", ", ".join(f"{k}: {v}" for k, v in sorted(summary.rejected.items())) or "0"),
        ("facts written", summary.facts), ("conflicts", summary.conflicts),
        ("skipped", len(summary.skipped)), ("seconds", f"{summary.seconds:.2f}"),
    ):
        table.add_row(key, str(value))
    console.print(table)
    for bad in summary.skipped:
        err_console.print(f"[yellow]skipped[/] {bad}", highlight=False, markup=True)
    if json_out:
        Path(json_out).write_text(json.dumps(summary.as_dict(), indent=2, ensure_ascii=False))
    if summary.skipped:
        sys.exit(1)


# --- cypher ---------------------------------------------------------------
def _parse_params(pairs: tuple[str, ...]) -> dict:
    params = {}
    for pair in pairs:
        if "=" not in pair:
            raise click.BadParameter(f"{pair!r}: expected key=value", param_hint="--param")
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
def cypher(query, file_, params, fmt):
    """Run a read-only Cypher QUERY (or -f FILE) against the graph.

    Writes are refused and change nothing. Example:

        kgtool cypher 'MATCH (e:Entity) RETURN e.name LIMIT 5'
    """
    from kgtool.graph import queries

    if bool(query) == bool(file_):
        raise click.UsageError("give either QUERY or -f FILE")
    text = queries.load_file(file_).text if file_ else query
    with _connect() as kg:
        keys, rows = kg.query(text, _parse_params(params))
    _print_rows(keys, rows, fmt)


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


if __name__ == "__main__":
    main()
