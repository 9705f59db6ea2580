"""`kgtool ask` and `kgtool methods`: answering questions and the methods that answer them."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from kgtool.cli.app import agent_choice, connect, parse_pairs
from kgtool.cli.present.runs import print_answer, print_expected, print_method, print_methods, print_offline
from kgtool.errors import KgToolError
from kgtool.reason.methods import DEFAULT_METHOD


def scope_option(value: str | None):
    """--scope all | case ids separated by commas | batch:NAME[,NAME]."""
    if not value or value == "all":
        return "all"
    if value.startswith("batch:"):
        return {"batches": [v for v in value[6:].split(",") if v]}
    return {"cases": [v for v in value.split(",") if v]}


def read_questions(path) -> list[dict]:
    """The questions of a JSONL file; a bad line is an error naming file:line."""
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


def _check_method(method: str, config: dict) -> None:
    """A misspelt method or setting is reported before connecting or loading anything."""
    from kgtool.reason.methods import METHODS

    METHODS.create_with(method, config)


@click.command()
@click.argument("question", required=False)
@click.option("-f", "--file", "file_", type=click.Path(exists=True, dir_okay=False),
              help="Answer every question of a JSONL file ({\"question\": ..., optional \"answer\"}).")
@click.option("--agents", type=agent_choice(), default=None,
              help="Agent family (default: llm when an endpoint is configured, else offline).")
@click.option("--method", default=DEFAULT_METHOD, show_default=True, help="A registered method (see `kgtool methods`).")
@click.option("--set", "settings_", multiple=True, metavar="KEY=VALUE",
              help="A setting of the method, e.g. --set tau_max=1 (repeatable; values parsed as JSON when they can "
                   "be; `kgtool methods NAME` lists them).")
@click.option("--scope", default="all", show_default=True,
              help="Edits in force: all, case ids (1,2,3) or batch:NAME.")
@click.option("--json", "as_json", is_flag=True, help="Print answers as JSON.")
@click.option("--passages", "preset", default=None, metavar="PRESET",
              help="Instead of answering, show the passages a retriever preset ranks first for the question: "
                   "hybrid, hybrid+linked, dense+walk, dense+linked+walk, hybrid+walk (graph walks), ... "
                   "(see `kgtool eval retrieval`).")
@click.option("--top", default=5, show_default=True, help="How many passages --passages shows.")
@click.option("--min-confidence", type=click.FloatRange(0.0, 1.0), default=None, metavar="C",
              help="Give no answer (the guess kept in the trace) when the answer's confidence (0-1) is below C.")
def ask(question, file_, agents, method, settings_, scope, as_json, preset, top, min_confidence):
    """Answer a multi-hop QUESTION (or every question in -f FILE) and print the chain.

    Three outcomes: "A: ..." (answered: the chain explains the whole question, every hop a fact),
    "A (unverified guess): ..." (a supported chain whose reading is uncertain) and "No answer: ..."
    (what the graph lacks, named; the method's guess stays in the trace). Each has a confidence
    (0-1); --min-confidence turns an answer below it into no answer.

    Each reasoning path is stored in Neo4j; see it with `kgtool trace show RUN_ID`
    (`kgtool trace list` lists the runs). With -f, an expected "answer" in the
    file (or "answerable": false) is checked: the exit code is 1 when an answer
    marked answered is wrong or an expected answer is missed (no answer, or a
    wrong guess); a right unverified guess and a no answer to an unanswerable
    question are not counted. A question that cannot be answered at all is
    reported on one line, the rest are answered, and the exit code is 1.

    Bounds: a question of at most 2,000 characters and no word over 100
    (KGTOOL_MAX_QUESTION_CHARS, KGTOOL_MAX_WORD_CHARS); above them it is refused
    with an error saying which.
    """
    if bool(question) == bool(file_):
        raise click.UsageError("give either QUESTION or -f FILE")
    items = [{"question": question}] if question else read_questions(file_)
    if preset:
        _show_passages(items, preset, top, scope, as_json)
        return
    config = parse_pairs(settings_, "--set")
    _check_method(method, config)
    wrong = 0
    from kgtool.cli.app import settings
    from kgtool.graph.warmup import record_statements

    record_statements(settings().shared_cache)  # what a warm-up plans ahead of a new store's first answer
    with connect() as kg:
        for number, item in enumerate(items, start=1):
            try:
                result = kg.answer(item["question"], method=method, agents=agents, scope=scope_option(scope),
                                   min_confidence=min_confidence, **config)
            except Exception as exc:  # noqa: BLE001 - with -f, one question's failure does not stop the file
                if not file_:
                    raise
                # one question's failure is that question's: reported on one line, the rest still answered
                _report_failed(file_, number, exc, as_json)
                wrong += 1
                continue
            expected = item.get("answer")
            if as_json:
                click.echo(json.dumps(result.as_dict(), ensure_ascii=False, default=str))
            else:
                print_answer(result)
            if expected is not None or item.get("answerable") is False:
                ok, counted = expected_outcome(item, result)
                wrong += counted
                if not as_json:
                    print_expected(expected if expected is not None else "no answer", ok)
    if wrong:
        sys.exit(1)


def _report_failed(path, number: int, exc: Exception, as_json: bool) -> None:
    """A question of `ask -f` that could not be answered, on one line (stderr; a JSON line on stdout with --json)."""
    from kgtool.errors import describe

    message = " ".join(str(describe(exc)).split())
    if as_json:
        click.echo(json.dumps({"question_number": number, "status": "failed", "error": message}, ensure_ascii=False))
    click.echo(f"error: {path}: question {number}: {message}", err=True)


def expected_outcome(item: dict, result) -> tuple[bool, bool]:
    """(is the outcome right, does it count against the exit code) for a file item with an expected
    "answer" or "answerable": false. Counted: an `answered` answer that is wrong, and a missed answer (no
    answer, or a wrong guess, to a question with one); not counted: a right unverified guess, and
    abstaining (or guessing, marked unverified) on a question the file marks unanswerable."""
    from kgtool.eval.mquake import matches

    if item.get("answerable") is False:
        return result.status == "no_answer", result.status == "answered"
    ok = matches(result.answer, item["answer"], item.get("aliases", []))
    return ok, not ok


def _show_passages(items, preset, top, scope, as_json) -> None:
    from kgtool.cli.present.passages import print_passages
    from kgtool.core.scope import Scope
    from kgtool.retrieve.passages import make_retriever

    scope = Scope.parse(scope_option(scope))
    with connect() as kg:
        retriever = make_retriever(kg.db, preset, embedder=kg.embedder, registry=kg.scorers)
        with kg.db.session(read_only=True) as session:
            for item in items:
                print_passages(item["question"], preset, retriever.retrieve(session, item["question"], scope, top),
                               as_json=as_json)


@click.command()
@click.argument("name", required=False)
def methods(name):
    """List the registered reasoning methods and agent families, or one method's settings.

    \b
    kgtool methods          every method, its version and what it does
    kgtool methods NAME     one method's settings: type, default (from its paper) and meaning
    kgtool methods offline  the offline agents' and the status rule's thresholds and weights: meaning,
                            source, user settings
    """
    from kgtool.reason.agents.factory import AGENTS
    from kgtool.reason.methods import METHODS

    if name is None:
        print_methods(METHODS.entries(), AGENTS.entries())
        return
    if name == "offline":
        from kgtool.reason.offline_config import OfflineConfig

        print_offline(OfflineConfig.describe())
        return
    print_method(METHODS.entry(name), METHODS.settings(name))
