"""Rendering of long-running work: progress bars, ingest and delete summaries, evaluation reports."""
from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path

from rich.table import Table

from kgtool.cli.present import (console, err_console, key_value_table, make_console, print_notice, styled,
                                write_json)


def _progress(*columns):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    texts = [TextColumn(c, markup=False) for c in columns[:1]]
    rest = [TextColumn(c, markup=False) for c in columns[1:]]
    return Progress(*texts, BarColumn(), MofNCompleteColumn(), *rest, TimeElapsedColumn(), console=err_console)


class _LazyBar:
    """A progress bar drawn from its first update on: work refused while validating prints no bar."""

    def __init__(self, *columns, **fields):
        self.bar = _progress(*columns)
        self.fields = fields
        self.task = None

    @property
    def console(self):
        return self.bar.console

    def update(self, task=None, **values):
        """Update the main task, or `task` (one of add_task's)."""
        if self.task is None:
            self.bar.start()
            self.task = self.bar.add_task("work", total=None, **self.fields)
        self.bar.update(self.task if task is None else task, **values)

    def add_task(self, *args, **kwargs):
        if self.task is None:
            self.update()
        return self.bar.add_task(*args, **kwargs)

    def stop(self):
        self.bar.stop()


@contextmanager
def ingest_progress(unit: str):
    """A progress bar for an ingest, with its rate in `unit`/s; yields (bar, progress(done, total)).

    The bar is drawn on the first progress call, so a file refused during
    validation prints its error without a bar above it.
    """
    lazy = _LazyBar("ingest", "{task.fields[rate]}", rate="")
    t0 = time.monotonic()

    def progress(done, total):
        rate = done / max(time.monotonic() - t0, 1e-9)
        lazy.update(completed=done, total=total, rate=f"{rate:,.0f} {unit}/s")

    try:
        yield lazy, progress
    finally:
        lazy.stop()


def stage_progress(bar):
    """A factory of progress(done, total) callbacks, each drawing its own task on `bar` for one named
    embedding stage ("passages", "facts") when it is first called."""
    tasks: dict[str, object] = {}

    def stage(what: str):
        def update(done, total):
            if what not in tasks:
                tasks[what] = bar.add_task("embedding", total=total, rate=f"embedding {what}")
            bar.update(tasks[what], completed=done, total=total)
        return update
    return stage


def embedded_facts_row(summary) -> tuple:
    """The "facts embedded" row of an edits or facts ingest: only in a document store, where the
    graph walk reads fact vectors (elsewhere no fact is embedded, by design)."""
    return (("facts embedded", summary.facts_embedded),) if summary.facts_embedded else ()


def bulk_phase(bar):
    """Announce each step of a bulk load above the progress bar."""
    return lambda name: bar.console.print(styled(("bulk: ", "dim"), f"{name} ..."))


def bulk_rows(summary) -> tuple:
    """A bulk load's seconds per phase and its importer report, as extra summary rows."""
    phases = getattr(summary, "phases", None)
    if phases is None:
        return ()
    return (("bulk phases (s)", ", ".join(f"{k} {v:.2f}" for k, v in phases.seconds.items())),
            ("import report", phases.import_report))


def new_and_present(summary, key: str, written: int, label: str) -> tuple:
    """A row `label: N new, M already present` (a re-run of the same file adds nothing new)."""
    new = (getattr(summary, "new", None) or {}).get(key)
    if new is None:
        return ()
    return ((f"{label} new / already present", f"{new} / {max(written - new, 0)}"),)


def print_ingest(path, rows, summary) -> None:
    """An ingest summary and its skipped records."""
    console.print(key_value_table(rows, title=f"ingested {path}"))
    for bad in summary.skipped:
        print_notice("skipped", str(bad))


def print_delete(report, dry_run: bool) -> None:
    title = "would delete (dry run, nothing written)" if dry_run else "deleted"
    console.print(key_value_table((
        ("edits", len(report.edits)), ("documents", len(report.documents)), ("source files", len(report.sources)),
        ("passages deleted", report.passages_deleted), ("passages retracted", report.passages_retracted),
        ("facts deleted", len(report.facts_deleted)), ("facts retracted (used by runs)", len(report.facts_retracted)),
        ("facts in force again", len(report.facts_restored)), ("fact status changes", len(report.status_changes)),
        ("edit verdict changes", len(report.edit_changes)), ("entities deleted", len(report.entities_deleted)),
        ("relations deleted", len(report.relations_deleted)),
    ), title=title))
    for f in report.facts_deleted[:20]:
        console.print(f"  - {f['head']} | {f['relation']} | {f['tail']}")
    for c in report.status_changes[:20]:
        console.print(f"  {c['fact_id']}: {c['before']} -> {c['after']}")
    for c in report.edit_changes[:20]:
        console.print(f"  edit {c['edit_id']}: {c['before']} -> {c['after']}")


def run_with_progress(label: str, field: str, work):
    """Run `work(progress(done, total, name))` under a bar that names what it is on (drawn from the first call)."""
    lazy = _LazyBar(f"{label} {{task.fields[{field}]}}", **{field: ""})
    try:
        return work(lambda done, total, name: lazy.update(completed=done, total=total, **{field: name}))
    finally:
        lazy.stop()


def print_eval(data: dict, json_out, html_out, *, wide: bool = False) -> None:
    """The side-by-side table of an evaluation (within 120 columns; `wide`: every column), its notes, and the
    JSON and HTML files."""
    from rich.measure import Measurement

    from kgtool.eval.report import rich_table

    table = rich_table(data, wide=wide)
    # a pipe or a file gets the table at its natural width instead of squeezed into 80 columns
    natural = Measurement.get(console, console.options.update_width(1000), table).maximum
    (console if console.is_terminal else make_console(width=max(console.width, natural))).print(table)
    for name, summary in data["methods"].items():
        console.print(f"{name}: questions {summary['questions']}, {summary['seconds']:.1f} s")
    for note in data["notes"]:
        print_notice("note", note)
    pert = data["perturbation"]
    if pert:
        fate = "removed" if pert["removed"] else f"kept (remove it with: kgtool eval remove-perturbation {pert['id']})"
        console.print(f"perturbation {pert['id']}: {pert['hidden']} facts hidden, {pert['added']} distractors "
                      f"added; {fate}")
    if json_out:
        write_json(json_out, data)
        console.print(f"wrote {json_out}")
    if html_out:
        from kgtool.eval.report_html import render_report_html

        Path(html_out).write_text(render_report_html(data), encoding="utf-8")
        console.print(f"wrote {html_out}")


def print_retrieval(data: dict) -> None:
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
            print_notice("unavailable", f"{name}: {r['error']}")
    if data["gold_missing"]:
        print_notice("note", f"{data['gold_missing']} of {data['gold_passages']} gold passages are not in the graph "
                             "(counted as missed)")
    if data["best"]:
        console.print(f"best: {data['best']}, recall@{data['primary_k']} {data['best_minus_baseline'] * 100:+.1f} "
                      "points over the BM25 baseline")
    link = data["linking"]
    if link:
        console.print(f"linking: {link['answers_linked']} of {link['hops']} decomposition answers are entities "
                      f"linked to their passage ({100 * (link['answers_linked_share'] or 0):.1f}%); "
                      f"{link['facts_per_passage']} facts per document passage")


def print_verified(path, result) -> None:
    console.print(key_value_table((
        ("format", result.format), ("max hops", result.max_hops), ("questions", result.total),
        ("verifiable", result.verifiable), ("removed", result.removed),
        ("share removed", f"{result.share_removed:.1%}"),
        *((f"  {reason}", n) for reason, n in sorted(result.reasons.items()) if reason != "verifiable"),
        ("subset", result.out), ("summary", result.summary)), title=f"verify-benchmark {path}"))
