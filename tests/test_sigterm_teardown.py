"""A test run stopped by SIGTERM (a CI timeout, `kill`) still tears its session fixtures down,
so the Neo4j servers they started do not outlive it."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

TESTS = Path(__file__).parent

SLOW_TEST = '''
import os, time, pytest

@pytest.fixture(scope="session")
def resource():
    yield
    open(os.environ["TORN_DOWN"], "w").write("yes")

def test_runs_long(resource):
    open(os.environ["STARTED"], "w").write("yes")
    time.sleep(120)
'''


def _terminate_mid_test(tmp_path: Path, plugins: list[str]) -> tuple[int, bool]:
    (tmp_path / "test_slow.py").write_text(SLOW_TEST)
    started, torn_down = tmp_path / "started", tmp_path / "torn_down"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
           "STARTED": str(started), "TORN_DOWN": str(torn_down)}
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *plugins, "test_slow.py"]
    run = subprocess.Popen(args, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while not started.exists():
        assert run.poll() is None, run.stdout.read().decode()
        assert time.monotonic() < deadline, "the slow test never started"
        time.sleep(0.1)
    run.send_signal(signal.SIGTERM)
    code = run.wait(timeout=60)
    return code, torn_down.exists()


def test_sigterm_runs_fixture_teardown(tmp_path):
    code, torn_down = _terminate_mid_test(tmp_path, ["-p", "sigterm_teardown"])
    assert torn_down
    assert code != 0


def test_without_the_plugin_pytest_skips_teardown_on_sigterm(tmp_path):
    # why the plugin exists: plain pytest dies on SIGTERM without tearing anything down
    code, torn_down = _terminate_mid_test(tmp_path, [])
    assert not torn_down
    assert code == -signal.SIGTERM
