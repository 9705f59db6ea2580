"""Shared fixtures: a real Neo4j started by kgtool's own code, never a mock.

The server runs in a temporary home on a free port, through the same
LocalServer that `kgtool db start` uses. If it cannot start, every test that
needs it fails (not skips) with the server's log tail.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("KGTOOL_WARMUP", "0")  # no background warm-up process beside each test's commands
sys.path.insert(0, str(Path(__file__).parent))

from stub_llm import stub_llm, stub_settings  # noqa: E402,F401  (fixtures)

from helpers import own_server  # noqa: E402
from sigterm_teardown import pytest_configure  # noqa: E402,F401  (hook: SIGTERM tears fixtures down)

from kgtool.config import Settings  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def neo4j_settings(tmp_path_factory) -> Settings:
    with own_server(tmp_path_factory.mktemp("kgtool-home")) as settings:
        yield settings


@pytest.fixture(scope="session")
def kg_session(neo4j_settings):
    from kgtool.api import KnowledgeGraph

    kg = KnowledgeGraph.connect(neo4j_settings)
    kg.init_schema()
    yield kg
    kg.close()


@pytest.fixture
def kg(kg_session):
    """The session's graph, emptied before the test."""
    kg_session.clear()
    return kg_session


@pytest.fixture(scope="session")
def mquake_dev() -> Path:
    path = SHARED_DATA / "mquake-hard-dev.json"
    assert path.exists(), f"development data missing at {path}"
    return path


@pytest.fixture
def sample_kg(kg):
    """The graph with the bundled sample edits ingested."""
    from helpers import SAMPLE

    kg.ingest_edits(SAMPLE / "edits.jsonl")
    return kg
