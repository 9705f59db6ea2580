"""`kgtool cypher`: the read-only analyst console."""
from __future__ import annotations

import csv
import json
import sys

import click

from kgtool.cli.app import Choice, connect, parse_pairs
from kgtool.cli.present import cell, console, err_console, print_rows


@click.command()
@click.argument("query", required=False)
@click.option("-f", "--file", "file_", type=click.Path(exists=True, dir_okay=False), help="Read the query from a file.")
@click.option("-p", "--param", "params", multiple=True, help="key=value; the value is parsed as JSON when it can be.")
@click.option("--format", "fmt", type=Choice(["table", "json", "csv"]), default="table", show_default=True)
@click.option("--timeout", default=None, help="Stop the command after this long, the query and printing its rows "
                                              "(30s, 2m, 0 for no limit); default KGTOOL_CONSOLE_TIMEOUT or 60s.")
@click.option("--limit", default=1000, show_default=True, type=click.IntRange(min=0),
              help="Print at most this many rows (0: all); the rest are counted: \"N more rows not shown\".")
def cypher(query, file_, params, fmt, timeout, limit):
    """Run a read-only Cypher QUERY (or -f FILE) against the graph.

    Only reads of the graph run: writes, LOAD CSV, administration commands
    (users, transactions, settings) and procedures outside a read-only set
    are refused with the reason (exit code 2) and change nothing. Prefix
    EXPLAIN to see the plan without running, PROFILE to run and see it.
    At most --limit rows are printed (default 1,000; the rest are counted),
    CSV and JSON as they arrive; --timeout covers the query and the printing.
    Ready-made queries live in cypher/analyst/, e.g.:

        kgtool cypher -f cypher/analyst/backtracks.cypher
    """
    from kgtool.graph import queries

    if bool(query) == bool(file_):
        raise click.UsageError("give either QUERY or -f FILE")
    text = queries.load_file(file_).text if file_ else query
    printer = RowPrinter(fmt)
    with connect() as kg:
        # rows are printed as they arrive (json, csv) or gathered up to the limit (table)
        result = kg.db.console_stream(text, parse_pairs(params), timeout=timeout, limit=limit or None,
                                      on_keys=printer.start, on_row=printer.row)
    if result.profiled or result.plan is None:
        printer.end(result)
    if result.plan is not None:
        from kgtool.graph.console import plan_lines

        # after PROFILE's rows in json/csv the plan goes to stderr, so stdout stays machine-readable
        out = err_console if result.profiled and fmt != "table" else console
        out.print("profile:" if result.profiled else "plan (EXPLAIN: the query was not run):")
        for line in plan_lines(result.plan, profiled=result.profiled):
            out.print(line, soft_wrap=True)


class RowPrinter:
    """The console's rows on stdout: CSV and JSON written row by row as they arrive, a table at the end."""

    def __init__(self, fmt: str):
        self.fmt = fmt
        self.keys: list[str] = []
        self.rows: list[dict] = []
        self.writer = None
        self.count = 0

    def start(self, keys: list[str]) -> None:
        self.keys = keys
        if self.fmt == "csv":
            self.writer = csv.DictWriter(sys.stdout, fieldnames=keys)
            self.writer.writeheader()
        elif self.fmt == "json":
            sys.stdout.write("[")

    def row(self, row: dict) -> None:
        if self.fmt == "csv":
            self.writer.writerow({k: cell(v) for k, v in row.items()})
        elif self.fmt == "json":
            sys.stdout.write(("," if self.count else "") + "\n  " + json.dumps(row, default=str, ensure_ascii=False))
        else:
            self.rows.append(row)
        self.count += 1

    def end(self, result) -> None:
        if self.fmt == "json":
            sys.stdout.write("\n]\n" if self.count else "]\n")
        elif self.fmt == "table":
            print_rows(self.keys, self.rows, "table")
        if result.more:
            # on stderr with json/csv, so stdout stays machine-readable
            note = (f"{'at least ' if result.more_is_partial else ''}{result.more:,} more row(s) not shown "
                    f"(--limit {result.shown}; --limit 0 prints all)")
            (console if self.fmt == "table" else err_console).print(note)
