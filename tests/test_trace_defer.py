"""Deferred trace writes (TraceRecorder.defer): not in the graph until the trace's next statement, then
all of them in that statement's transaction; a failed transaction writes none of them."""
from __future__ import annotations

import pytest

from kgtool.core.scope import Scope
from kgtool.core.types import Verdict
from kgtool.reason.taxonomy import C2ragError
from kgtool.reason.trace import TraceRecorder


def _verdicts(kg, run_id: str) -> list[str]:
    rows = kg.db.read("trace/show_run", run_id=run_id)
    return sorted(v["explanation"] for s in rows[0]["steps"] for v in s["verdicts"])


def _run_with_a_step(kg, session):
    """A C2RAG trace with an open run of one step, its verdicts deferred."""
    trace = TraceRecorder(kg.db, session, C2ragError)
    trace.start_run("q?", "test", "offline", Scope(), {}, {})
    row = TraceRecorder.step_row(hop=1, query="q1", candidates=[], gamma=1.5, answer="A")
    (step,) = trace.record_steps([row])
    trace.defer_verdicts = True
    return trace, step


def test_deferred_writes_wait_for_the_next_statement_and_share_its_transaction(kg):
    with kg.db.session() as session:
        trace, step = _run_with_a_step(kg, session)
        trace.verdict(step.step_id, Verdict(False, 1, C2ragError.INSUFFICIENT.value, "first"), 1)
        trace.verdict(step.step_id, Verdict(False, 1, C2ragError.UNRECOVERED.value, "second"), 1)
        assert _verdicts(kg, trace.run_id) == []  # another session sees nothing yet
        # the next statement of the trace carries them, and its own rows still come back
        chain = trace.chain([step.step_id])
        assert [r["step_id"] for r in chain] == [step.step_id]
        assert _verdicts(kg, trace.run_id) == ["first", "second"]
        # the verdict that closes the run is never deferred: the run is closed when it returns
        trace.verdict(step.step_id, Verdict(True, None, None, "last"), 2,
                      finish={"status": "answered", "chain_step_ids": [step.step_id]})
        run = kg.db.read("trace/show_run", run_id=trace.run_id)[0]["run"]
        assert run["status"] == "answered" and _verdicts(kg, trace.run_id) == ["first", "last", "second"]


def test_a_failed_transaction_writes_none_of_the_deferred_writes(kg):
    with kg.db.session() as session:
        trace, step = _run_with_a_step(kg, session)
        trace.verdict(step.step_id, Verdict(False, 1, C2ragError.INSUFFICIENT.value, "deferred"), 1)
        run_id = trace.run_id
        again = {**trace.run_params("q?", "test", "offline", Scope(), {}, {}), "run_id": run_id}
        trace.run_id = run_id
        with pytest.raises(Exception, match="already exists"):
            trace._run("trace/start_run", **again)  # a second Run of the same id: the id constraint refuses it
        assert _verdicts(kg, trace.run_id) == []
        trace.flush()  # still queued: written once the transaction can commit
        assert _verdicts(kg, trace.run_id) == ["deferred"]


def test_a_failed_run_keeps_the_writes_deferred_before_it_failed(kg):
    from kgtool.reason.runner import _record_failure
    from kgtool.core.types import Usage

    with kg.db.session() as session:
        trace, step = _run_with_a_step(kg, session)
        trace.verdict(step.step_id, Verdict(False, 1, C2ragError.INSUFFICIENT.value, "before the failure"), 1)
        _record_failure(trace, RuntimeError("boom"), 0.0, 0.0, Usage())
    run = kg.db.read("trace/show_run", run_id=trace.run_id)[0]["run"]
    assert run["status"] == "failed" and _verdicts(kg, trace.run_id) == ["before the failure"]

