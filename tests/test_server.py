"""The local server: started by kgtool's own code, bound to loopback, auth on."""
from __future__ import annotations

import os
import stat

import pytest

from kgtool.errors import ServerError
from kgtool.graph.server import LocalServer


def test_server_answers_with_generated_password_only(neo4j_settings):
    from neo4j import GraphDatabase
    from neo4j.exceptions import AuthError

    server = LocalServer(neo4j_settings)
    st = server.status()
    assert st.running and st.version.startswith("Neo4j/5.26")
    assert st.uri.startswith("bolt://127.0.0.1:")
    mode = stat.S_IMODE(os.stat(server.password_file).st_mode)
    assert mode == 0o600, oct(mode)
    with pytest.raises(AuthError):
        with GraphDatabase.driver(server.uri, auth=("neo4j", "wrong-password")) as driver:
            driver.verify_connectivity()


def test_config_binds_loopback_and_disables_http(neo4j_settings):
    conf = (LocalServer(neo4j_settings).home / "conf" / "neo4j.conf").read_text()
    assert "server.default_listen_address=127.0.0.1" in conf
    assert "server.http.enabled=false" in conf
    assert "dbms.security.auth_enabled=true" in conf


def test_start_is_a_noop_when_running(neo4j_settings):
    server = LocalServer(neo4j_settings)
    pid = server.pid()
    assert server.start() is False
    assert server.pid() == pid


def test_port_taken_by_another_process_is_a_clear_error(tmp_path, neo4j_settings):
    from dataclasses import replace

    # a second home on the port the test server already holds
    other = LocalServer(replace(neo4j_settings, home=tmp_path))
    with pytest.raises(ServerError, match="is taken by another process"):
        other.start(timeout=5)


def test_missing_java_names_what_to_install(tmp_path, monkeypatch, neo4j_settings):
    from dataclasses import replace

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    server = LocalServer(replace(neo4j_settings, home=tmp_path))
    monkeypatch.setattr("kgtool.graph.server.Path.is_dir", lambda self: False)
    with pytest.raises(ServerError, match="Java 17 or 21"):
        server.java()


def test_missing_maven_names_what_to_install(tmp_path, monkeypatch, neo4j_settings):
    from dataclasses import replace

    monkeypatch.setenv("PATH", str(tmp_path))
    server = LocalServer(replace(neo4j_settings, home=tmp_path, runtime_dir=tmp_path / "rt"))
    with pytest.raises(ServerError, match="apt-get install maven"):
        server.resolve_jars()


def test_generated_passwords_are_never_read_as_options():
    from kgtool.graph.server import new_password

    passwords = {new_password() for _ in range(2000)}
    assert len(passwords) == 2000
    assert all(len(p) == 48 and not p.startswith("-") and set(p) <= set("0123456789abcdef") for p in passwords)


def test_a_routing_uri_reaches_the_local_server_and_reads_its_own_writes(kg, neo4j_settings):
    """neo4j:// (what a cluster or Aura needs) against the local server: the driver routes,
    and a read in a new session after a write waits for that write's bookmark."""
    import dataclasses

    from kgtool.graph.db import Database

    settings = dataclasses.replace(
        neo4j_settings, neo4j_uri=f"neo4j://127.0.0.1:{neo4j_settings.neo4j_port}", neo4j_user="neo4j",
        neo4j_password=LocalServer(neo4j_settings).password())
    with Database.connect(settings) as db:
        assert db.uri.startswith("neo4j://")
        db.write("ingest/merge_entities", rows=[{"id": "name:routed", "name": "Routed", "norm": "routed", "qid": None,
                                                 "aliases": [], "alias_text": ""}])
        assert db.bookmarks.get_bookmarks()  # the write's bookmark is held for the next session
        _, rows = db.query_read_only("MATCH (e:Entity {id: $id}) RETURN e.name AS name", {"id": "name:routed"})
        assert rows == [{"name": "Routed"}]
