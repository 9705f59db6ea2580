"""Batches written behind their preparation, and statements sent without waiting for them."""
from __future__ import annotations

import gc
import sys
import threading

import pytest
from neo4j.exceptions import Neo4jError

from kgtool.ingest.write_behind import fewer_collections, prompt_handoff, write_behind


def test_batches_are_written_in_order_while_the_next_is_prepared():
    events: list[str] = []
    first_write_started, first_write_may_end = threading.Event(), threading.Event()

    def batches():
        for k in range(3):
            if k == 1:
                # the second batch is prepared while the first is being written
                assert first_write_started.wait(5)
                events.append("prepare 1 during write 0")
                first_write_may_end.set()
            else:
                events.append(f"prepare {k}")
            yield k

    def write(k: int) -> int:
        if k == 0:
            first_write_started.set()
            assert first_write_may_end.wait(5)
        events.append(f"write {k} on {threading.current_thread().name.split('_')[0]}")
        return k * 10

    written: list[tuple[int, int]] = []
    write_behind(batches(), write, lambda k, result: written.append((k, result)), thread_name="test-writer")
    assert written == [(0, 0), (1, 10), (2, 20)]
    writes = [e for e in events if e.startswith("write")]
    assert writes == [f"write {k} on test-writer" for k in range(3)]
    assert events[:3] == ["prepare 0", "prepare 1 during write 0", "write 0 on test-writer"]
    # batch 2 is prepared once batch 0 is written (at most one batch waits), and written last
    assert events.index("prepare 2") > events.index("write 0 on test-writer") and events[-1] == writes[-1]


def test_a_failed_write_stops_the_run_before_any_later_batch_is_written():
    prepared: list[int] = []
    written: list[int] = []

    def batches():
        for k in range(10):
            prepared.append(k)
            yield k

    def write(k: int) -> None:
        if k == 2:
            raise ConnectionError("server gone")
        written.append(k)

    with pytest.raises(ConnectionError, match="server gone"):
        write_behind(batches(), write)
    assert written == [0, 1]
    assert prepared == [0, 1, 2, 3]  # at most the one batch after the failed one was prepared, none written


def test_the_interpreter_settings_hold_for_the_loop_only_and_never_loosen():
    interval, thresholds = sys.getswitchinterval(), gc.get_threshold()
    seen = []

    def write(_batch) -> None:
        seen.append((sys.getswitchinterval(), gc.get_threshold()))
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_behind(iter([1]), write)
    assert seen and seen[0][0] <= min(interval, 0.0005) and seen[0][1][0] >= max(thresholds[0], 50_000)
    assert (sys.getswitchinterval(), gc.get_threshold()) == (interval, thresholds)

    gc.set_threshold(200_000, 30, 30)
    sys.setswitchinterval(0.0001)
    try:
        with prompt_handoff(), fewer_collections():
            # a process already tuned further keeps its own settings
            assert sys.getswitchinterval() == pytest.approx(0.0001, abs=2e-6) and gc.get_threshold() == (200_000, 30, 30)
    finally:
        sys.setswitchinterval(interval)
        gc.set_threshold(*thresholds)


def test_a_statement_sent_without_waiting_that_fails_rolls_the_whole_transaction_back(kg):
    good = {"id": "name:sent ahead", "name": "Sent ahead", "norm": "sent ahead", "qid": None, "aliases": [],
            "alias_text": ""}
    bad = {**good, "id": "name:bad", "name": {"not": "a property value"}}

    def work(run):
        run("ingest/merge_entities", {"rows": [good]}, rows=False)
        run("ingest/merge_entities", {"rows": [bad]}, rows=False)  # its error comes with the commit

    with pytest.raises(Neo4jError):
        kg.db.write_transaction(work)
    assert kg.query("MATCH (e:Entity) RETURN count(e) AS n")[1] == [{"n": 0}]

    # a statement sent without waiting is committed with its transaction
    kg.db.write_transaction(lambda run: run("ingest/merge_entities", {"rows": [good]}, rows=False))
    assert kg.query("MATCH (e:Entity) RETURN e.name AS name")[1] == [{"name": "Sent ahead"}]
