"""The command line around a real server: db status/stats, ask over the bundled sample."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kgtool.cli import main
from helpers import env_for

SAMPLE = Path(__file__).resolve().parent.parent / "ingest" / "sample"


def test_db_status_and_stats(kg, neo4j_settings):
    runner = CliRunner()
    status = runner.invoke(main, ["db", "status"], env=env_for(neo4j_settings), catch_exceptions=False)
    assert status.exit_code == 0 and "Neo4j/5.26" in status.output and "127.0.0.1" in status.output
    kg.ingest_edits(SAMPLE / "edits.jsonl", embed_relations=False)
    stats = runner.invoke(main, ["db", "stats"], env=env_for(neo4j_settings), catch_exceptions=False)
    assert stats.exit_code == 0
    assert "Edit" in stats.output and "12" in stats.output and "ASSERTS" in stats.output


def test_ask_a_file_checks_expected_answers(kg, neo4j_settings, tmp_path):
    kg.ingest_edits(SAMPLE / "edits.jsonl")
    runner = CliRunner()
    ok = runner.invoke(main, ["ask", "-f", str(SAMPLE / "questions.jsonl")], env=env_for(neo4j_settings),
                       catch_exceptions=False)
    assert ok.exit_code == 0, ok.output
    assert ok.output.count("correct") == 4 and "wrong" not in ok.output
    wrong = tmp_path / "q.jsonl"
    wrong.write_text(json.dumps({"question": "Who performed Hey Jude?", "answer": "The Beatles"}) + "\n")
    bad = runner.invoke(main, ["ask", "-f", str(wrong), "--agents", "offline"], env=env_for(neo4j_settings),
                        catch_exceptions=False)
    assert bad.exit_code == 1 and "wrong" in bad.output and "Madonna" in bad.output
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"question": 1}\n')
    err = runner.invoke(main, ["ask", "-f", str(broken)], env=env_for(neo4j_settings), catch_exceptions=False)
    assert err.exit_code == 2 and "broken.jsonl:1" in err.output


def test_ask_json_output_has_the_chain(kg, neo4j_settings):
    kg.ingest_edits(SAMPLE / "edits.jsonl")
    out = CliRunner().invoke(main, ["ask", "Who is Jacinda Ardern married to?", "--json"],
                             env=env_for(neo4j_settings), catch_exceptions=False)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)  # progress bars of model loading go to stderr
    assert data["answer"] == "Keanu Reeves"
    assert data["chain"][0]["evidence"] == "Jacinda Ardern is married to Keanu Reeves."
    assert data["run_id"].startswith("run-")


def test_methods_lists_care_and_ask_takes_a_method_and_its_settings(kg, neo4j_settings):
    runner = CliRunner()
    listed = runner.invoke(main, ["methods"], env=env_for(neo4j_settings), catch_exceptions=False)
    assert listed.exit_code == 0 and "care" in listed.output and "offline" in listed.output
    kg.ingest_edits(SAMPLE / "edits.jsonl")
    out = runner.invoke(main, ["ask", "Who is Jacinda Ardern married to?", "--json", "--method", "care",
                               "--set", "top_k=1"], env=env_for(neo4j_settings), catch_exceptions=False)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["answer"] == "Keanu Reeves" and data["method"] == "care"
    assert json.loads(kg.trace(data["run_id"])["run"]["config"])["top_k"] == 1
    bad = runner.invoke(main, ["ask", "Who is Jacinda Ardern married to?", "--set", "nonsense=1"],
                        env=env_for(neo4j_settings), catch_exceptions=False)
    assert bad.exit_code == 2 and "has no setting nonsense" in bad.output
    unknown = runner.invoke(main, ["ask", "Who?", "--method", "nope"], env=env_for(neo4j_settings),
                            catch_exceptions=False)
    assert unknown.exit_code == 2 and "registered:" in unknown.output and "care" in unknown.output
