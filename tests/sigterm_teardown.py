"""pytest plugin: a terminated test run tears its fixtures down as an interrupted one does.

pytest runs fixture teardown after Ctrl-C (KeyboardInterrupt) but not after SIGTERM, which CI
timeouts and `kill` send; the Neo4j servers the session fixtures started then outlive the run
(a killed suite left its server running on the team's machine). Raising KeyboardInterrupt on
SIGTERM lets the fixtures stop them. Loaded by tests/conftest.py.
"""
from __future__ import annotations

import signal


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"terminated by {signal.Signals(signum).name}")


def pytest_configure(config):
    signal.signal(signal.SIGTERM, _interrupt)
