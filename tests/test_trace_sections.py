"""The trace sections a method declares are read, printed and drawn: ReAgent's assertions, rollbacks and
messages in kg.trace, `kgtool trace show` and the HTML page (a planted contradiction forces a rollback)."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from helpers import env_for
from kgtool.cli import main
from kgtool.reason.trace_html import render_trace_html
from kgtool.reason.trace_sections import sections_of_run

QUESTION = "What is the country of citizenship of the performer of Golden Sky?"
PLANTED = [  # two performers for a one-valued slot; the verifier prefers the one that leads nowhere
    ("Golden Sky", "performer", "Echo Crew", "Golden Sky was performed by Echo Crew."),
    ("Golden Sky", "performer", "Nova Band",
     "Golden Sky is a ballad that the group Nova Band recorded and performed on stage."),
    ("Nova Band", "country of citizenship", "Freedonia", "Nova Band is a citizen of Freedonia."),
]


def test_reagent_assertions_rollbacks_and_messages_are_shown(kg, neo4j_settings, tmp_path):
    planted = tmp_path / "planted.tsv"
    planted.write_text("".join("\t".join(r) + "\n" for r in PLANTED), encoding="utf-8")
    kg.ingest_facts(planted)
    result = kg.answer(QUESTION, method="reagent", agents="offline")
    trace = kg.trace(result.run_id)
    assert [s.key for s in sections_of_run(trace["run"], kg.methods)] == ["assertions", "rollbacks", "messages"]
    assert any(a["status"] == "retracted" for a in trace["assertions"])
    rollback = next(r for r in trace["rollbacks"] if r["kind"] == "global")
    assert rollback["checkpoint"] == "plan" and rollback["retracted"] >= 3 and rollback["conflict_set"] >= 1
    assert rollback["conflict_kind"] == "broken_bridge"
    assert [m["t"] for m in trace["messages"]] == sorted(m["t"] for m in trace["messages"])
    assert ("reject", "verifier") in {(m["type"], m["sender"]) for m in trace["messages"]}

    page = render_trace_html(trace, kg.methods)
    assert page.count("data-assertion=") == len(trace["assertions"])
    assert page.count("data-rollback=") == len(trace["rollbacks"]) and "<caption>Rollbacks</caption>" in page
    assert page.count("data-message=") == len(trace["messages"])

    shown = CliRunner().invoke(main, ["trace", "show", result.run_id], env=env_for(neo4j_settings),
                               catch_exceptions=False)
    assert shown.exit_code == 0, shown.output
    assert "rollback t=" in shown.output and " global to plan " in shown.output
    assert shown.output.count("\nassertion t=") == len(trace["assertions"])
    assert shown.output.count("\nmessage t=") == len(trace["messages"])

    # a run of a method that declares nothing has no section keys
    care = kg.trace(kg.answer(QUESTION, method="care", agents="offline").run_id)
    assert not {"assertions", "rollbacks", "messages", "plans", "constraints"} & set(care)
