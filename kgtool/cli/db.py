"""`kgtool db ...`: the local Neo4j server, its plugins, the schema and the store's contents."""
from __future__ import annotations

import sys
import time

import click
from rich.table import Table

from kgtool.cli.app import connect, local_server
from kgtool.cli.present import console, counts_table, key_value_table, print_notice, styled


@click.group()
def db():
    """Manage the local Neo4j server and the schema.

    \b
    The local server's neo4j.conf is rewritten on every start. Your own
    settings go in <KGTOOL_HOME>/neo4j/conf/user.conf (key=value lines),
    merged after kgtool's; keys that would open the server up (non-loopback
    listen addresses, auth off, CSV import from URLs) are refused.
    Plugins: `kgtool db plugins add G:A:V[:classifier]` or KGTOOL_NEO4J_PLUGINS.
    """


@db.command()
@click.option("--timeout", default=180.0, show_default=True, help="Seconds to wait for Bolt to answer.")
def start(timeout):
    """Start the local Neo4j (resolving its jars with Maven on first use)."""
    server = local_server()
    t0 = time.monotonic()
    with console.status("starting Neo4j ..."):
        started = server.start(timeout=timeout)
    if started:
        console.print(f"Neo4j started on {server.uri} in {time.monotonic() - t0:.1f} s (home {server.home})")
        from kgtool.cli.app import settings
        from kgtool.graph.warmup import start_background

        start_background(settings())  # a new server plans every statement once: done before the first answer
    else:
        console.print(f"Neo4j already running on {server.uri}")


@db.command()
def stop():
    """Stop the local Neo4j gracefully."""
    console.print("stopped" if local_server().stop() else "Neo4j was not running")


@db.command()
def status():
    """URI, Neo4j version, pid and store size of the local server."""
    st = local_server().status()
    console.print(key_value_table((
        ("running", "yes" if st.running else "no"), ("uri", st.uri), ("version", st.version or "-"),
        ("pid", st.pid or "-"), ("store", f"{st.store_bytes / 1e6:.1f} MB"), ("home", st.home))))
    if not st.running:
        sys.exit(1)


@db.command()
@click.option("-n", "--lines", default=40, show_default=True)
def logs(lines):
    """The tail of the local server's logs."""
    click.echo(local_server().log_tail(lines))


@db.command()
def init():
    """Apply the schema (constraints, full-text and vector indexes); idempotent."""
    with connect() as kg:
        n = kg.init_schema()
    console.print(f"schema applied ({n} statements)")


@db.command()
def stats():
    """Node counts by label and relationship counts by type, and what needs attention (`kgtool db doctor`)."""
    from kgtool.health import unfinished_message

    with connect() as kg:
        st = kg.stats()
        found = kg.health()
    console.print(counts_table("labels", "label", st["nodes"]))
    console.print(counts_table("relationships", "relationship", st["relationships"]))
    unfinished = {unfinished_message(ingest) for ingest in found.unfinished_ingests}
    for problem in found.problems():  # what a killed command left behind (kgtool db doctor)
        # an unfinished ingest's message says its own fix (re-run it); the rest are doctor's to mend
        print_notice("needs attention:", problem if problem in unfinished else f"{problem}; run `kgtool db doctor --fix`")


@db.command("warm-vectors")
def warm_vectors():
    """Embed the words of every stored passage into the embedder's vector cache (<shared cache>/vectors).

    The offline readers embed a passage's words when they weigh its sentences; this embeds them
    ahead, once per home (idempotent: run it again after ingesting more documents). ~2 ms of CPU a
    new word; without it the cache fills as answers meet the words.
    """
    from kgtool.retrieve.word_vectors import store_passage_words

    with connect() as kg:
        embedder = kg.embedder
        if getattr(embedder, "disk", None) is None:
            console.print("the vector cache is off (KGTOOL_VECTOR_CACHE=0): nothing to do")
            return
        t0 = time.monotonic()
        with console.status("embedding passage words ..."):
            n = store_passage_words(kg.db, embedder)
    console.print(f"{n} new words embedded in {time.monotonic() - t0:.1f} s into {embedder.disk.path}")


@db.command()
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def reset(yes):
    """Delete everything in the graph (edits, facts, documents, runs); the schema stays."""
    with connect() as kg:
        counts = kg.stats()["nodes"]
        total = sum(counts.values())
        if not total:
            console.print("the graph is already empty")
            return
        where = kg.settings.neo4j_uri or f"the local server in {kg.settings.home}"
        summary = ", ".join(f"{n} {label}" for label, n in sorted(counts.items()))
        if not yes:
            click.confirm(f"delete all {total} nodes ({summary}) from {where}?", abort=True, err=True)
        kg.clear()
    console.print(f"deleted {total} nodes ({summary}); the schema stays")


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
        console.print(styled(("Neo4j is running: restart it to apply this", "yellow"),
                             " (`kgtool db stop && kgtool db start`, or pass --restart)"))


@db_plugins.command("add")
@click.argument("coordinate")
@click.option("--procedures", default=None,
              help="Procedure namespaces to unrestrict, e.g. 'apoc.*|apoc.meta.*' "
                   "(default: the artifact's first word, apoc-core -> apoc.*).")
@click.option("--restart", is_flag=True, help="Restart a running server so it loads the plugin now.")
def plugins_add(coordinate, procedures, restart):
    """Fetch a plugin jar by Maven coordinates G:A:V[:classifier] and record it."""
    from kgtool.graph.plugins import parse_plugin

    server = local_server()
    spec = parse_plugin(coordinate, procedures, where="kgtool db plugins add")
    with console.status(f"resolving {spec.coordinate} with Maven ..."):
        entry = server.plugins().add(spec)
    console.print(f"added {entry['coordinate']} -> {server.plugins_dir / entry['jar']} "
                  f"(unrestricted: {', '.join(entry['procedures'])})")
    _restart_note(server, restart)


@db_plugins.command("list")
def plugins_list():
    """Installed plugins, their jars and unrestricted procedure namespaces."""
    server = local_server()
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
    server = local_server()
    entry = server.plugins().remove(name)
    console.print(f"removed {entry['coordinate']}")
    _restart_note(server, restart)
