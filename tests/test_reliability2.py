"""Probe suite of issue 29: nothing lost, nothing stuck.

Each test here failed on 61fa433: duplicates in a document ingest, questions that
hit a node deleted under them, interruption, driver log noise, oversized input,
user.conf keys in another case, a failed start without its reason, a console
query without a time limit, passages left without embeddings. Real parts only:
a Neo4j started by kgtool's own code, real signals, real concurrent writers.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgtool.errors import ConfigError, ServerError


# --------------------------------------------------------------------------- user.conf and start failures


def test_user_conf_keys_are_read_as_neo4j_reads_them(tmp_path):
    from kgtool.graph.user_conf import read_user_conf

    conf = tmp_path / "user.conf"
    conf.write_text("  SERVER.DEFAULT_LISTEN_ADDRESS = 0.0.0.0\n")
    with pytest.raises(ConfigError, match=r"user.conf:1: SERVER.DEFAULT_LISTEN_ADDRESS \(read by Neo4j as "
                                          r"server.default_listen_address\) is refused"):
        read_user_conf(conf)
    conf.write_text("DB.Transaction.Timeout=30s\ndb.transaction.timeout = 10s\n")
    with pytest.raises(ConfigError, match="already set on line 1"):
        read_user_conf(conf)
    conf.write_text("  DB.Transaction.Timeout =  30s  \n")
    assert read_user_conf(conf) == [("db.transaction.timeout", "30s")]


def test_a_failed_start_quotes_the_new_log_lines_that_say_why(tmp_path):
    from helpers import own_server  # noqa: F401  (same runtime as the session server)
    import os

    from kgtool.config import Settings, default_home
    from kgtool.graph.server import LocalServer, free_port

    runtime = Path(os.environ.get("KGTOOL_RUNTIME_DIR") or default_home() / "runtime")
    settings = Settings(home=tmp_path / "home", neo4j_port=free_port(), runtime_dir=runtime, neo4j_heap="512m",
                        neo4j_pagecache="64m")
    server = LocalServer(settings)
    server.user_conf_file.parent.mkdir(parents=True, exist_ok=True)
    server.console_file.parent.mkdir(parents=True, exist_ok=True)
    server.console_file.write_text("an old line from an earlier start: ERROR something long gone\n")
    server.user_conf_file.write_text("db.transaction.timeout=not-a-duration\n")
    server.password_file.write_text("unused: the server stops at its config\n")  # skip the admin tool's own check
    try:
        with pytest.raises(ServerError) as failed:
            server.start(timeout=120)
    finally:
        server.stop()
    message = str(failed.value)
    assert "Why, from the server's log" in message, message
    assert "db.transaction.timeout" in message and "Missing numeric value" in message, message
    assert "long gone" not in message, message
