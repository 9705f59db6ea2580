"""The background warm-up of Neo4j's plan cache (kgtool.graph.warmup), on a real server."""
from __future__ import annotations

import json
import os

import pytest

from helpers import SAMPLE
from kgtool.graph import warmup


@pytest.fixture
def recording(monkeypatch, tmp_path):
    """This process noting its statements into a list under tmp_path, the warm-up switched on."""
    monkeypatch.setenv("KGTOOL_WARMUP", "1")
    warmup._seen.clear()
    warmup.record_statements(tmp_path)
    yield warmup.statements_file(tmp_path)
    warmup._recording[0] = False
    warmup._seen.clear()


def _questions():
    return [json.loads(line) for line in (SAMPLE / "questions.jsonl").read_text().splitlines() if line.strip()]


def _counts(kg):
    _, rows = kg.query("MATCH (n) RETURN count(n) AS nodes")
    _, rels = kg.query("MATCH ()-[r]->() RETURN count(r) AS rels")
    return rows[0]["nodes"], rels[0]["rels"]


def test_the_statements_of_an_answer_are_noted_without_their_words_and_replayed_leaving_nothing(sample_kg, recording):
    item = _questions()[0]
    before = sample_kg.answer(item["question"], agents="offline")
    warmup._save(recording)
    noted = warmup.load(recording)
    assert len(noted) >= 5
    assert {json.loads(s)[0] for s in noted} >= {"trace/start_run"}
    text = " ".join(noted)
    for word in item["question"].replace("?", "").split():
        if len(word) > 3:
            assert word not in text  # shapes only: no question word, name or answer kept
    counts = _counts(sample_kg)
    ran, failed = warmup.run(sample_kg.db, noted)
    assert (ran, failed) == (len(noted), 0)
    assert _counts(sample_kg) == counts  # every statement rolled back
    after = sample_kg.answer(item["question"], agents="offline")
    assert (after.answer, after.status) == (before.answer, before.status)


def test_start_background_plans_in_another_process_and_the_next_answer_is_right(sample_kg, recording, neo4j_settings):
    item = _questions()[1]
    sample_kg.answer(item["question"], agents="offline")
    warmup._save(recording)
    settings = _with_cache(neo4j_settings, recording.parent.parent)
    counts = _counts(sample_kg)
    process = warmup.start_background(settings)
    assert process is not None
    assert process.wait(timeout=300) == 0
    log = (settings.home / "logs" / "warmup.log").read_text()
    assert f"{len(warmup.load(recording))} statements planned, 0 failed" in log
    assert _counts(sample_kg) == counts
    answer = sample_kg.answer(item["question"], agents="offline")
    assert answer.answer == item["answer"]


def test_kgtool_warmup_0_turns_recording_and_the_background_run_off(sample_kg, monkeypatch, tmp_path, neo4j_settings):
    monkeypatch.setenv("KGTOOL_WARMUP", "0")
    warmup._seen.clear()
    warmup.record_statements(tmp_path)
    sample_kg.answer(_questions()[0]["question"], agents="offline")
    assert warmup._seen == {}
    warmup._save(warmup.statements_file(tmp_path))
    assert not warmup.statements_file(tmp_path).exists()
    # even with a list in place, nothing is started
    path = warmup.statements_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps([json.dumps(["graph/relations", {}])]))
    assert warmup.start_background(_with_cache(neo4j_settings, tmp_path)) is None
    monkeypatch.setenv("KGTOOL_WARMUP", "1")
    assert os.environ["KGTOOL_WARMUP"] == "1" and warmup.enabled()


def _with_cache(settings, cache):
    import dataclasses

    return dataclasses.replace(settings, shared_cache=cache)


def test_a_machine_that_noted_nothing_warms_the_shipped_list_which_names_only_statements_that_exist(
        sample_kg, monkeypatch, tmp_path, neo4j_settings):
    from kgtool.graph import queries

    shipped = warmup.load(warmup.DEFAULT_STATEMENTS)
    assert len(shipped) >= 20
    for item in shipped:
        name, params = json.loads(item)
        assert queries.text(name)  # renamed or removed statements: rewrite it (bench/warmup_default.py)
        assert set("".join(_strings(params))) <= {"~"}  # shapes only: no word of any question or graph
    assert warmup.statements_to_warm(tmp_path) == warmup.DEFAULT_STATEMENTS
    counts = _counts(sample_kg)
    assert warmup.run(sample_kg.db, shipped) == (len(shipped), 0)
    assert _counts(sample_kg) == counts
    monkeypatch.setenv("KGTOOL_WARMUP", "1")
    settings = _with_cache(neo4j_settings, tmp_path)
    process = warmup.start_background(settings)
    assert process is not None and process.wait(timeout=300) == 0
    assert f"{len(shipped)} statements planned, 0 failed" in (settings.home / "logs" / "warmup.log").read_text()


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
