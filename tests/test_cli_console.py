"""What the command line prints is the text it was given: no markup, no emoji codes, no clipped labels.

Every error message and hint in kgtool's source (the string parts of each
`raise ...Error(...)`, and the install hint of every extra) is printed through
the CLI's own consoles; brackets (`pip install 'kgtool[bge]'`), markup-like
words (`[yellow]`) and colon words (`a:b:1`, an emoji code to rich) must come
out as written.
"""
from __future__ import annotations

import ast
import io
import re
from pathlib import Path

from click.testing import CliRunner

from kgtool.errors import MissingExtraError

PACKAGE = Path(__file__).resolve().parent.parent / "kgtool"
PROBE = "kgtool[bge] [yellow]x[/] a:b:1 :smile:"


def _raised_messages() -> list[str]:
    """The message templates of every `raise SomethingError(...)` in kgtool, placeholders filled with PROBE."""
    messages = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            for arg in node.exc.args[:1]:
                text = _template(arg)
                if text:
                    messages.append(text)
    return messages


def _template(node) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else PROBE for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _template(node.left) + _template(node.right)
    return ""


def _extras() -> list[str]:
    text = (PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8")
    block = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    return re.findall(r"^([a-z][a-z0-9-]*) = \[", block, flags=re.M)


def _printed(render) -> str:
    from kgtool.cli import present

    out = present.make_console(width=10_000)
    out.file = io.StringIO()
    render(out)
    return out.file.getvalue()


def test_every_error_message_and_hint_prints_as_written():
    from kgtool.cli.present import print_error, print_notice

    messages = _raised_messages() + [str(MissingExtraError("x", extra, "y")) for extra in _extras()]
    assert len(messages) > 100, "the scan found too few messages: it is not reading the source"
    assert any("kgtool[" in m for m in messages)
    for message in messages:
        assert _printed(lambda out: print_error(message, out)).strip() == f"error: {message}".strip()
        assert _printed(lambda out: print_notice("note", message, out=out)).strip() == f"note {message}".strip()


def test_the_cli_consoles_read_no_markup_and_no_emoji():
    from kgtool.cli import present

    for console in (present.console, present.err_console):
        assert console._markup is False and console._emoji is False
    assert _printed(lambda out: out.print(PROBE)).strip() == PROBE


def test_a_setting_value_is_echoed_as_typed():
    from kgtool.cli import main

    # the wrong type is reported with the value as typed: brackets and colons included
    out = CliRunner().invoke(main, ["ask", "who?", "--set", "tau_max=[a:b:1]"], env={"NEO4J_URI": "bolt://127.0.0.1:1"})
    assert out.exit_code == 2
    assert "setting tau_max must be int, got '[a:b:1]'" in out.output, out.output


def test_a_candidate_label_shows_its_p_whole():
    from kgtool.reason.trace_html import CAND_CHARS, render_trace_html

    cand = {"fact_id": "f1", "rank": 1, "score": 0.1, "p": 3e-7, "head": "A", "relation": "r",
            "tail": "A very long entity name that fills the box", "evidence": "e", "discarded": False}
    trace = {"run": {"id": "run-1", "method": "m", "agents": "offline", "status": "answered", "question": "q",
                     "answer": "a", "latency_ms": 1.0, "tokens": 0},
             "steps": [{"id": "s1", "hop": 1, "attempt": 0, "query": "q", "entity": "A", "state": "resolved",
                        "neff": 1.0, "gamma": 1.5, "chosen": "f1", "generated_answer": None, "revised_as": None,
                        "verdicts": [], "candidates": [cand]}],
             "backtracks": []}
    page = render_trace_html(trace)
    lines = [re.sub(r"<[^>]+>", "", t) for t in re.findall(r"<text[^>]*>(.*?)</text>", page) if "· p" in t]
    assert lines, "no candidate line with its p"
    for line in lines:
        assert line.endswith("· p &lt;0.001"), line
        assert len(line.replace("&lt;", "<")) <= CAND_CHARS, line


# --- said before anything connects: wrong files, misspelt names ---------------------------------------
NO_SERVER = {"NEO4J_URI": "bolt://127.0.0.1:1"}  # any command that tried to connect would fail differently


def _cli(*args):
    from kgtool.cli import main

    return CliRunner().invoke(main, list(args), env=NO_SERVER)


def test_a_file_of_another_kind_gets_the_command_that_reads_it(tmp_path):
    kg_tsv = tmp_path / "kg.tsv"
    kg_tsv.write_text("Hey Jude\tperformer\tThe Beatles\n", encoding="utf-8")
    out = _cli("ingest", "edits", str(kg_tsv))
    assert out.exit_code == 2 and f"`kgtool ingest facts {kg_tsv}`" in out.output, out.output
    edits = tmp_path / "edits.jsonl"
    edits.write_text('{"id": "e", "subject": "A", "relation": "r", "object": "B", "description": "A r B."}\n')
    out = _cli("ingest", "facts", str(edits))
    assert out.exit_code == 2 and f"`kgtool ingest edits {edits}`" in out.output, out.output
    mquake = tmp_path / "cases.json"
    mquake.write_text('[{"case_id": 1, "requested_rewrite": []}]', encoding="utf-8")
    out = _cli("eval", "qa", str(mquake))
    assert out.exit_code == 2 and f"`kgtool eval mquake {mquake}`" in out.output, out.output
    qa = tmp_path / "qa.jsonl"
    qa.write_text('{"id": "q", "question": "Who?", "answers": ["B"]}\n', encoding="utf-8")
    out = _cli("eval", "mquake", str(qa))
    assert out.exit_code == 2 and f"`kgtool eval qa {qa}`" in out.output, out.output


def test_misspelt_names_get_a_did_you_mean():
    assert "did you mean 'vog'" in _cli("ask", "Who?", "--method", "vgo").output
    assert "did you mean 'vog'" in _cli("methods", "vgo").output
    assert "did you mean 'tau_max'" in _cli("ask", "Who?", "--set", "tau_mx=1").output
    assert "did you mean 'jsonl'" in _cli("ingest", "edits", __file__, "--format", "jsnl").output
    assert "did you mean 'trace'" in _cli("tarce", "list").output


def test_methods_name_lists_each_setting_with_its_default_and_meaning():
    from kgtool.reason.methods import METHODS

    for name in METHODS.names():
        out = _cli("methods", name)
        assert out.exit_code == 0, out.output
        for s in METHODS.settings(name):
            row = next((ln for ln in out.output.splitlines() if ln.split("│")[1:2] and
                        ln.split("│")[1].strip() == s.name), None)
            assert row is not None and repr(s.default) in row and s.doc[:20] in row, (name, s.name, out.output)


def test_a_summary_titled_with_a_path_keeps_the_path_on_one_line():
    from rich.console import Console

    from kgtool.cli.present import key_value_table

    title = "ingested /home/someone/graphs/company/exports/kg.nt"
    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(key_value_table([("facts", 108)], title=title))
    assert title in out.getvalue().splitlines()[0]


def test_an_answer_says_which_hops_were_generated_and_which_were_read_from_text(monkeypatch):
    from types import SimpleNamespace

    from kgtool.cli import present
    from kgtool.cli.present import runs

    result = SimpleNamespace(question="Q?", answer="Ada", status="answered", latency_ms=1.0, tokens=0, backtracks=0,
                             run_id="run-1", reason=None,
                             chain=[{"hop": 1, "question": "(X, wrote, ?x1)", "answer": "Ada", "generated": False},
                                    {"hop": 2, "question": "(Ada, born in, ?x2)", "answer": "Ely", "generated": True}])
    out = present.make_console(width=10_000)
    out.file = io.StringIO()
    monkeypatch.setattr(runs, "console", out)
    runs.print_answer(result)
    lines = out.file.getvalue().splitlines()
    assert lines[2].strip() == "1. (X, wrote, ?x1) -> Ada (read from text, no stored fact)"
    assert lines[3].strip() == "2. (Ada, born in, ?x2) -> Ely (generated)"
