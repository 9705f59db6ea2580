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
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

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
        table = Table(show_edge=False, pad_edge=False)
        for col in ("rank", "candidate", "score", "p", "scores", "passes", "chosen"):
            table.add_column(col, overflow="fold")
        for c in step["candidates"]:
            named = " ".join(f"{k}={v:.2f}" for k, v in sorted(c["scores"].items()) if isinstance(v, (int, float)))
            table.add_row(str(c["rank"]), _candidate_text(c), f"{c['score']:.3f}", f"{c['p']:.3f}", named,
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


@eval_.command("remove-perturbation")
@click.argument("perturbation_id")
def eval_remove_perturbation(perturbation_id):
    """Remove a perturbation kept with --keep-perturbation (its distractors go; stored facts are untouched)."""
    with _connect() as kg:
        removed = kg.remove_perturbation(perturbation_id)
    console.print(f"removed perturbation {perturbation_id} and its {removed} distractor fact(s)", highlight=False)


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
def cypher(query, file_, params, fmt):
    """Run a read-only Cypher QUERY (or -f FILE) against the graph.

    Writes are refused and change nothing. Ready-made queries live in
    cypher/analyst/, e.g.:

        kgtool cypher -f cypher/analyst/backtracks.cypher
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
