"""How the command line shows things: the consoles and the small renderers every command shares.

Nothing printed through these consoles is read as rich markup or emoji codes:
user text, file names, Maven coordinates and error hints hold brackets and
colons (`pip install 'kgtool[bge]'`, `a:b:1`) that markup would swallow or
turn into pictures. Styling goes through `styled(...)` (explicit styles on
plain text) instead, so a bracket always prints as a bracket.
"""
from __future__ import annotations

import csv
import json
import os
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

PLAIN = {"markup": False, "emoji": False, "highlight": False}


def make_console(*, stderr: bool = False, width: int | None = None) -> Console:
    """A console that prints text as it is (no markup, no emoji codes, no highlighting)."""
    return Console(stderr=stderr, width=width, **PLAIN)


console = make_console()
err_console = make_console(stderr=True)
# a pipe or a file gets whole lines: run ids and table cells are not cut or folded at 80 columns
if not console.is_terminal and not os.environ.get("COLUMNS"):
    console = make_console(width=1000)


def styled(*parts) -> Text:
    """Plain text pieces, each a str or (str, style): styles without markup."""
    return Text.assemble(*parts)


def print_error(message: str, out: Console | None = None) -> None:
    """The one line every failed command ends with."""
    (out or err_console).print(styled(("error: ", "bold red"), str(message)), soft_wrap=True)


def print_notice(label: str, message: str, *, style: str = "yellow", out: Console | None = None) -> None:
    """A labelled warning or note on stderr (`skipped ...`, `note ...`, `unavailable ...`)."""
    (out or err_console).print(styled((label, style), " ", str(message)), soft_wrap=True)


def key_value_table(rows, title: str | None = None) -> Table:
    """A two-column table of (key, value) rows, values shown with str().

    At least as wide as its title (up to the console's width): a title that names a file would
    otherwise wrap inside the narrow table and cut the path in two."""
    table = Table(title=title, show_header=False, min_width=len(title) if title else None)
    for key, value in rows:
        table.add_row(str(key), str(value))
    return table


def counts_table(title: str, column: str, counts: dict) -> Table:
    table = Table(title=title)
    table.add_column(column)
    table.add_column("count", justify="right")
    for key, count in counts.items():
        table.add_row(str(key), str(count))
    return table


def cell(value) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(value, default=str, ensure_ascii=False)
    return "" if value is None else str(value)


def print_rows(keys, rows, fmt: str) -> None:
    """Query rows as a table, JSON or CSV on stdout."""
    if fmt == "json":
        sys.stdout.write(json.dumps(rows, default=str, ensure_ascii=False, indent=2) + "\n")
    elif fmt == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=keys)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: cell(v) for k, v in row.items()})
    else:
        table = Table()
        for key in keys:
            table.add_column(key)
        for row in rows:
            table.add_row(*(cell(row.get(k)) for k in keys))
        console.print(table)
        console.print(f"{len(rows)} row(s)")


def write_json(path, data) -> None:
    Path(path).write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str), encoding="utf-8")


def figure(value) -> str:
    """Three decimals, and <0.001 rather than 0.000 or 1.397e-06 for a tiny probability."""
    if not isinstance(value, (int, float)):
        return "-"
    return "<0.001" if 0 < value < 0.0005 else f"{value:.3f}"
