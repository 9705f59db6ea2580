"""Small helpers the test modules share (fixtures live in conftest.py)."""
from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Iterator

import pytest

from kgtool.config import Settings, default_home

SAMPLE = Path(__file__).resolve().parent.parent / "ingest" / "sample"


def env_for(settings) -> dict[str, str]:
    """The environment a CLI invocation needs to reach the test server of `settings`."""
    return {"KGTOOL_HOME": str(settings.home), "KGTOOL_NEO4J_PORT": str(settings.neo4j_port),
            "KGTOOL_RUNTIME_DIR": str(settings.runtime_dir)}


@contextlib.contextmanager
def own_server(home: Path, what: str = "the test Neo4j", **overrides) -> Iterator[Settings]:
    """A Neo4j of its own in `home` on a free port, started by kgtool's LocalServer, stopped afterwards.

    If it cannot start, the test fails (never skips) with the server's log tail."""
    from kgtool.graph.server import LocalServer, free_port

    runtime = Path(os.environ.get("KGTOOL_RUNTIME_DIR") or default_home() / "runtime")
    settings = Settings(home=home, neo4j_port=free_port(), runtime_dir=runtime,
                        **{"neo4j_heap": "1g", "neo4j_pagecache": "256m", **overrides})
    server = LocalServer(settings)
    try:
        server.start(timeout=240)
    except Exception as exc:  # the message carries the log tail
        server.stop()
        pytest.fail(f"{what} could not start: {exc}", pytrace=False)
    except BaseException:  # interrupted while starting (Ctrl-C, or SIGTERM: see sigterm_teardown)
        server.stop()
        raise
    try:
        yield settings
    finally:
        server.stop()


def ingest_triples(kg, path: Path, triples) -> None:
    """Write (head, relation, tail) triples to `path` as a JSONL fact file and ingest it into `kg`."""
    path.write_text("".join(json.dumps({"head": h, "relation": r, "tail": t}) + "\n" for h, r, t in triples))
    kg.ingest_facts(path)


def ingest_documents(kg, path: Path, docs) -> None:
    """Write documents ({id, title, text}) to `path` as a JSONL document collection and ingest it into `kg`."""
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    kg.ingest_docs(path, format="jsonl")


def edit_count(settings) -> int:
    """The edits a store holds now, read over its own driver; 0 while its server does not answer (a test
    that kills a server or an ingest polls this)."""
    from neo4j import GraphDatabase
    from neo4j.exceptions import Neo4jError, ServiceUnavailable, SessionExpired

    from kgtool.graph.server import LocalServer

    server = LocalServer(settings)
    try:
        with GraphDatabase.driver(server.uri, auth=("neo4j", server.password()), connection_timeout=2.0) as driver:
            with driver.session() as session:
                return session.run("MATCH (e:Edit) RETURN count(e) AS n").single()["n"]
    except (ServiceUnavailable, SessionExpired, Neo4jError, OSError):
        return 0


def wait_for(condition, timeout: float, what: str, every: float = 0.05):
    """`condition()`'s first true value, polled every `every` seconds; an AssertionError after `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")

