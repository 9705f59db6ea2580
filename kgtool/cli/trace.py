"""`kgtool trace list|show`: the stored reasoning runs."""
from __future__ import annotations

from pathlib import Path

import click

from kgtool.cli.app import Choice, connect
from kgtool.cli.present import console
from kgtool.cli.present.runs import print_run_list, print_trace
from kgtool.errors import KgToolError

# what a run's status can be: an answer's outcome, or how it ended otherwise
RUN_STATUSES = ("answered", "unverified", "no_answer", "failed", "running", "abandoned")


@click.group()
def trace():
    """Inspect stored reasoning runs."""


@trace.command("list")
@click.option("--method", default=None, help="Only runs of this method.")
@click.option("--status", type=Choice(RUN_STATUSES), default=None, help="Only runs with this status.")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1), help="At most this many runs.")
def trace_list(method, status, limit):
    """The latest runs, newest first, with their ids for `kgtool trace show RUN_ID`."""
    with connect() as kg:
        rows = kg.runs(method=method, status=status, limit=limit)
    if not rows:
        what = " ".join(x for x in (method and f"method {method}", status and f"status {status}") if x)
        console.print(f"no runs{' with ' + what if what else ''} in the graph (answer with: kgtool ask QUESTION)")
        return
    print_run_list(rows)


@trace.command("show")
@click.argument("run_id")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), help="Write an interactive page of the run.")
def trace_show(run_id, html_path):
    """Print a run's chain: candidates, scores, N_eff, verdicts and backtracks."""
    with connect() as kg:
        data = kg.trace(run_id)
        methods = kg.methods
    if data is None:
        raise KgToolError(f"no run {run_id!r} in the graph; list runs with: kgtool trace list")
    print_trace(data, methods)
    if html_path:
        from kgtool.reason.trace_html import render_trace_html

        Path(html_path).write_text(render_trace_html(data, methods), encoding="utf-8")
        console.print(f"wrote {html_path}")
