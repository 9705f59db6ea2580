"""`kgtool cypher`: the read-only analyst console."""
from __future__ import annotations

import click

from kgtool.cli.app import Choice, connect, parse_pairs
from kgtool.cli.present import console, err_console, print_rows


@click.command()
@click.argument("query", required=False)
@click.option("-f", "--file", "file_", type=click.Path(exists=True, dir_okay=False), help="Read the query from a file.")
@click.option("-p", "--param", "params", multiple=True, help="key=value; the value is parsed as JSON when it can be.")
@click.option("--format", "fmt", type=Choice(["table", "json", "csv"]), default="table", show_default=True)
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
    with connect() as kg:
        result = kg.db.console(text, parse_pairs(params), timeout=timeout)
    if result.profiled or result.plan is None:
        print_rows(result.keys, result.rows, fmt)
    if result.plan is not None:
        from kgtool.graph.console import plan_lines

        # after PROFILE's rows in json/csv the plan goes to stderr, so stdout stays machine-readable
        out = err_console if result.profiled and fmt != "table" else console
        out.print("profile:" if result.profiled else "plan (EXPLAIN: the query was not run):")
        for line in plan_lines(result.plan, profiled=result.profiled):
            out.print(line, soft_wrap=True)
