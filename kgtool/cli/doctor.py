"""`kgtool db doctor`: what killed or interrupted commands left behind, and the fix (--fix).

The command only parses its options and calls KnowledgeGraph.health / repair
(kgtool.health); registered on the `db` group in kgtool/cli/__init__.py.
"""
from __future__ import annotations

import json
import sys

import click


def _seconds(ctx, param, value):
    from kgtool.graph.console import parse_timeout

    if value is None:
        return None
    try:
        seconds = parse_timeout(value)
    except Exception as exc:  # noqa: BLE001 - a bad option value is a usage error
        raise click.BadParameter(str(exc)) from None
    if not seconds:
        raise click.BadParameter("give a duration above zero, such as 30m or 2h")
    return seconds


@click.command("doctor")
@click.option("--fix", is_flag=True, help="Mend what is found: close stale runs as 'abandoned', embed passages, "
                                          "facts and relation labels without an embedding, remove perturbations "
                                          "left behind (an unfinished ingest is mended by re-running it).")
@click.option("--stale-after", default=None, callback=_seconds,
              help="A run still 'running' this long after it started is stale (e.g. 30m, 2h; default 1h).")
@click.option("--json", "as_json", is_flag=True, help="Print the findings (and what was fixed) as JSON.")
@click.option("--recover", is_flag=True,
              help="Start a store Neo4j cannot recover (a transaction log damaged by a full disk): copy the data "
                   "directory aside, start once with Neo4j's recovery setting (the damaged end of the log is "
                   "LOST), restart. Asks first.")
@click.option("--yes", is_flag=True, help="With --recover: do not ask for confirmation.")
def doctor(fix, stale_after, as_json, recover, yes):
    """Find runs left 'running', passages, facts and relation labels without embeddings, leftover
    perturbations and unfinished ingests; --fix mends all but the last.

    A killed command (kill -9, a crash, a machine going down) cannot close
    what it had open. An ingest that did not finish is named with the command
    that finishes it (the same ingest again). Exit code 0 when nothing needs
    mending (or --fix mended it), 1 when something does or an ingest is unfinished.
    --recover is for a local store that will not start because its transaction
    log is damaged (the start's error says so).
    """
    if recover:
        recover_store(yes)
        return
    from rich.console import Console

    from kgtool.api import KnowledgeGraph
    from kgtool.health import unfinished_command

    out = Console(highlight=False, emoji=False)
    with KnowledgeGraph.connect() as kg:
        found = kg.health(stale_after=stale_after)
        repaired = kg.repair(stale_after=found.stale_after) if fix and found.mendable else None
    if as_json:
        click.echo(json.dumps({"found": found.as_dict(), "fixed": repaired.as_dict() if repaired else None},
                              indent=2, ensure_ascii=False, default=str))
    else:
        if found.ok:
            out.print("nothing to mend: no stale runs, every passage and fact has its embedding, no leftover "
                      "perturbation",
                      markup=False)
        for problem in found.problems():
            out.print(f"found: {problem}", markup=False)
        for run in found.stale_runs[:10]:
            out.print(f"  run {run['id']} ({run['method']}, started {run['started_at']}, {run['age_s']} s ago, "
                      f"process {run['owner'] or 'unknown'}): {run['question']}", markup=False, soft_wrap=True)
        if found.passage_sample:
            out.print(f"  passages e.g. {', '.join(found.passage_sample)}", markup=False, soft_wrap=True)
        for ingest in found.unfinished_ingests:  # no --fix: the same ingest again finishes it
            out.print(f"  started {ingest['started_at']}; re-run: {unfinished_command(ingest)}", markup=False,
                      soft_wrap=True)
        if repaired is not None:
            out.print(f"fixed: {repaired.runs_abandoned} run(s) closed as abandoned, {repaired.passages_embedded} "
                      f"passage(s) and {repaired.facts_embedded} fact(s) embedded, {len(repaired.perturbations_removed)} perturbation(s) removed, "
                      f"{repaired.relations_embedded} relation label(s) embedded",
                      markup=False)
        elif found.mendable:
            out.print("run `kgtool db doctor --fix` to mend it", markup=False)
    # an unfinished ingest fails the check even after --fix: only re-running it mends it
    if (not found.ok and repaired is None) or found.unfinished_ingests:
        sys.exit(1)


def recover_store(yes: bool) -> None:
    """`db doctor --recover`: the documented recovery of a damaged transaction log, after a backup copy."""
    from kgtool.cli.app import local_server
    from kgtool.graph.host import _dir_size
    from kgtool.graph.recover import WARNING, recover

    server = local_server()
    data = server.home / "data"
    click.echo(f"{WARNING}\nStore: {data} ({_dir_size(data) / 1e6:.0f} MB, copied aside first).", err=True)
    if not yes:
        click.confirm("recover it?", abort=True, err=True)
    done = recover(server)
    click.echo(f"recovered: Neo4j started on {server.uri} in {done.seconds:.0f} s; the data directory as it was "
               f"is in {done.backup} ({done.backup_bytes / 1e6:.0f} MB: remove it once the store is checked)")
