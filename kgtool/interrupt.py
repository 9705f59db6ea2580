"""Interruption: SIGINT and SIGTERM close this process's open runs as 'interrupted' before it exits.

Without this, Ctrl-C raises KeyboardInterrupt wherever the main thread is, and
the runner's failure path may not get to write (a second Ctrl-C 0.3 s later
interrupts that write too), while worker threads of a parallel evaluation go on
answering questions nobody will see; SIGTERM ends the process at once. Every
Run left 'running' then stayed so until the next server start.

`closing_runs_on_signals(db)` wraps the answering calls of the API (answer,
answer_many, the evaluations). While it is active, in the main thread:

1. a signal first stops new statements (`kgtool.graph.db.stop_statements`):
   the answers running in other threads end at their next statement, and no
   new run opens;
2. then closes every run this process still has open (their `owner` is this
   host:pid) as 'interrupted' with the signal's name, in a thread of its own
   (the main thread may hold a driver lock at that instant);
3. then hands the signal to the handler the program had installed before the
   call, when it had one of its own (Python's Ctrl-C handler raises
   KeyboardInterrupt: exit code 130 in the CLI; a test runner's SIGTERM handler
   ends its session), else raises SystemExit(143) (SIGTERM).

A second signal while step 2 runs waits for it; a signal after that closes
again (any run opened meanwhile) and raises again. Outside the main thread, or
nested, the context manager does nothing.
"""
from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator

from kgtool.graph.db import Database, allow_statements, stop_statements

SIGNALS = (signal.SIGINT, signal.SIGTERM)
CLOSE_WAIT_SECONDS = 15.0  # how long a signal waits for the open runs to be closed


class _State:
    depth = 0
    closing = False
    signalled = False


_state = _State()


def _close_runs(db: Database, reason: str) -> None:
    from kgtool.reason.trace import interrupt_open_runs

    def close():
        with contextlib.suppress(Exception):  # a server that is gone cannot be told; the next start abandons them
            interrupt_open_runs(db, reason)

    worker = threading.Thread(target=close, name="kgtool-interrupt", daemon=True)
    worker.start()
    worker.join(CLOSE_WAIT_SECONDS)


def _handler(db: Database, previous: dict):
    def on_signal(signum, frame):
        _state.signalled = True
        # an answer that meets the stop first closes its own run with this reason, so it names the signal too
        stop_statements(f"interrupted by {signal.Signals(signum).name}")
        if _state.closing:
            return  # a second signal while the runs are being closed: that close finishes first
        _state.closing = True
        try:
            _close_runs(db, f"interrupted by {signal.Signals(signum).name} while the run was open")
        finally:
            _state.closing = False
        host = previous.get(signum)
        if callable(host):
            # the program around the call handles this signal its own way (Python's own Ctrl-C
            # handler raises KeyboardInterrupt; a test runner's SIGTERM handler ends its session):
            # the runs are closed, the rest is the host's
            host(signum, frame)
            return
        if signum == signal.SIGTERM:
            raise SystemExit(128 + signal.SIGTERM)
        raise KeyboardInterrupt

    return on_signal


@contextlib.contextmanager
def closing_runs_on_signals(db: Database) -> Iterator[None]:
    """SIGINT/SIGTERM close this process's open runs as 'interrupted' before the exception they raise."""
    if threading.current_thread() is not threading.main_thread() or _state.depth:
        yield
        return
    _state.signalled = False
    allow_statements()  # a previous interrupted call in this process left statements stopped
    previous = {sig: signal.getsignal(sig) for sig in SIGNALS}
    handler = _handler(db, previous)
    for sig in SIGNALS:
        signal.signal(sig, handler)
    _state.depth += 1
    try:
        yield
    except BaseException:
        if not _state.signalled:
            allow_statements()
        raise
    else:
        allow_statements()
    finally:
        _state.depth -= 1
        for sig, old in previous.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)
