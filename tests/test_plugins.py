"""Plugins and the user conf fragment of the local server, on a real Neo4j of its own.

One server (its own home and port, beside the session's) gets APOC core from
Maven Central through KGTOOL_NEO4J_PLUGINS and a user.conf line, is started,
stopped and started again, and must then run `apoc.version()` and report the
user's setting. The refusals need no server: they fail before Java starts.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import env_for
from kgtool.cli import main
from kgtool.config import Settings, default_home
from kgtool.errors import ConfigError
from kgtool.graph.plugins import PluginStore, parse_plugin, parse_plugin_setting
from kgtool.graph.server import LocalServer, free_port

APOC = "org.neo4j.procedure:apoc-core:5.26.0:core"
USER_LINE = "db.transaction.timeout=37s"


def _settings(home: Path, **extra) -> Settings:
    runtime = Path(os.environ.get("KGTOOL_RUNTIME_DIR") or default_home() / "runtime")
    return Settings(home=home, neo4j_port=free_port(), runtime_dir=runtime, neo4j_heap="512m",
                    neo4j_pagecache="64m", **extra)


def _user_conf(settings: Settings, text: str) -> Path:
    path = Path(settings.home) / "neo4j" / "conf" / "user.conf"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def plugin_server(tmp_path_factory):
    """A server with APOC from the setting and a user.conf line, after one restart."""
    settings = _settings(tmp_path_factory.mktemp("kgtool-plugins"), neo4j_plugins=APOC)
    _user_conf(settings, f"# a harmless setting of my own\n\n{USER_LINE}\n")
    server = LocalServer(settings)
    try:
        server.start(timeout=240)
        server.stop()
        server.start(timeout=240)
    except Exception as exc:  # the message carries the log tail
        server.stop()
        pytest.fail(f"the plugin test server could not start: {exc}", pytrace=False)
    yield settings, server
    server.stop()


def _query(settings: Settings, server: LocalServer, text: str, **params) -> list[dict]:
    from neo4j import GraphDatabase

    with GraphDatabase.driver(server.uri, auth=("neo4j", server.password())) as driver:
        records, _, _ = driver.execute_query(text, params, database_="neo4j")
    return [r.data() for r in records]


def test_apoc_from_the_setting_runs_after_a_restart(plugin_server):
    settings, server = plugin_server
    rows = _query(settings, server, "RETURN apoc.version() AS version")
    assert rows[0]["version"].startswith("5.26")
    # a procedure that needs the unrestricted namespace, not only a function
    rows = _query(settings, server, "CALL apoc.create.node(['PluginProbe'], {n: 1}) YIELD node "
                                    "WITH node DELETE node RETURN count(*) AS made")
    assert rows == [{"made": 1}]
    entries = server.plugins().entries()
    assert [(e["coordinate"], e["origin"], e["procedures"]) for e in entries] == [(APOC, "setting", ["apoc.*"])]
    assert (server.plugins_dir / entries[0]["jar"]).is_file()
    # the jar is there: a later start needs no Maven
    assert server.sync_plugins() == []


def test_user_conf_setting_survives_the_restart(plugin_server):
    settings, server = plugin_server
    rows = _query(settings, server, "SHOW SETTINGS YIELD name, value WHERE name = $name RETURN value",
                  name="db.transaction.timeout")
    assert rows == [{"value": "37s"}]
    conf = (server.home / "conf" / "neo4j.conf").read_text()
    assert USER_LINE in conf
    # kgtool's own settings are still in force beside it
    rows = _query(settings, server, "SHOW SETTINGS YIELD name, value WHERE name = $name RETURN value",
                  name="dbms.security.auth_enabled")
    assert rows == [{"value": "true"}]


def test_plugins_add_on_a_running_server_asks_for_a_restart(plugin_server):
    settings, server = plugin_server
    runner = CliRunner()
    env = {**env_for(settings), "KGTOOL_NEO4J_PLUGINS": APOC}
    out = runner.invoke(main, ["db", "plugins", "add", APOC], env=env, catch_exceptions=False)
    assert out.exit_code == 0, out.output
    assert "restart" in out.output
    listed = runner.invoke(main, ["db", "plugins", "list"], env=env, catch_exceptions=False)
    assert APOC in listed.output and "apoc.*" in listed.output


@pytest.mark.parametrize("line, key", [
    ("dbms.security.auth_enabled=false", "dbms.security.auth_enabled"),
    ("server.default_listen_address=0.0.0.0", "server.default_listen_address"),
    ("server.http.listen_address=10.1.2.3:7474", "server.http.listen_address"),
    ("server.bolt.listen_address=127.0.0.1:7999", "server.bolt.listen_address"),
    ("dbms.security.allow_csv_import_from_file_urls=true", "dbms.security.allow_csv_import_from_file_urls"),
    ("server.directories.data=elsewhere/data", "server.directories.data"),
])
def test_forbidden_user_conf_key_is_refused_with_file_and_line(tmp_path, line, key):
    settings = _settings(tmp_path)
    path = _user_conf(settings, f"# mine\n{USER_LINE}\n{line}\n")
    server = LocalServer(settings)
    with pytest.raises(ConfigError) as err:
        server._write_config()
    assert f"{path}:3" in str(err.value) and key in str(err.value)


def test_refusal_reaches_the_cli_and_keeps_the_last_config(tmp_path):
    settings = _settings(tmp_path)
    server = LocalServer(settings)
    server._write_config()
    before = (server.home / "conf" / "neo4j.conf").read_text()
    path = _user_conf(settings, "db.transaction.timeout=5s\nserver.https.listen_address=192.168.0.9:7473\n")
    out = CliRunner().invoke(main, ["db", "start", "--timeout", "30"], env=env_for(settings))
    assert out.exit_code == 2
    assert f"{path}:2" in out.output and "server.https.listen_address" in out.output
    assert (server.home / "conf" / "neo4j.conf").read_text() == before
    assert server.pid() is None


def test_csv_import_keys_need_the_kgtool_setting(tmp_path):
    settings = _settings(tmp_path, neo4j_allow_csv_import=True)
    _user_conf(settings, "dbms.security.allow_csv_import_from_file_urls=true\n")
    server = LocalServer(settings)
    server._write_config()
    conf = (server.home / "conf" / "neo4j.conf").read_text()
    assert "dbms.security.allow_csv_import_from_file_urls=true" in conf


@pytest.mark.parametrize("text, problem", [
    ("db.transaction.timeout 37s\n", "key=value"),
    ("=37s\n", "key=value"),
    ("db.transaction.timeout=\n", "no value"),
    ("db.transaction.timeout=1s\ndb.transaction.timeout=2s\n", "already set on line 1"),
])
def test_malformed_user_conf_line_is_an_error_with_file_and_line(tmp_path, text, problem):
    settings = _settings(tmp_path)
    path = _user_conf(settings, text)
    with pytest.raises(ConfigError) as err:
        LocalServer(settings)._write_config()
    line = text.count("\n")
    assert f"{path}:{line}" in str(err.value) and problem in str(err.value)


def test_user_key_replaces_kgtools_and_procedure_lists_merge(tmp_path, plugin_server):
    _, running = plugin_server
    settings = _settings(tmp_path)
    _user_conf(settings, "server.memory.pagecache.size=80m\ndbms.security.procedures.unrestricted=my.*\n")
    server = LocalServer(settings)
    store = server.plugins()
    jar = running.plugins().entries()[0]["jar"]
    shutil.copy(running.plugins_dir / jar, store.dir / jar)  # present: recorded without Maven
    store.add(parse_plugin(APOC))
    server._write_config()
    lines = (server.home / "conf" / "neo4j.conf").read_text().splitlines()
    assert lines.count("server.memory.pagecache.size=80m") == 1
    assert not any(ln.startswith("server.memory.pagecache.size=64m") for ln in lines)
    assert "dbms.security.procedures.unrestricted=apoc.*,my.*" in lines


def test_setting_plugins_go_when_the_setting_drops_them(tmp_path, plugin_server):
    _, running = plugin_server
    store = PluginStore(tmp_path / "plugins")
    store.dir.mkdir()
    jar = running.plugins().entries()[0]["jar"]
    shutil.copy(running.plugins_dir / jar, store.dir / jar)
    assert store.sync(parse_plugin_setting(APOC + "=apoc.coll.*|apoc.create.*")) == []
    assert store.procedures() == ["apoc.coll.*", "apoc.create.*"]
    store.sync([])
    assert store.entries() == [] and not (store.dir / jar).exists()


def test_cli_remove_deletes_the_jar_and_the_record(tmp_path, plugin_server):
    _, running = plugin_server
    settings = _settings(tmp_path)
    server = LocalServer(settings)
    jar = running.plugins().entries()[0]["jar"]
    shutil.copy(running.plugins_dir / jar, server.plugins().dir / jar)
    runner = CliRunner()
    added = runner.invoke(main, ["db", "plugins", "add", APOC, "--procedures", "apoc.coll.*"],
                          env=env_for(settings), catch_exceptions=False)
    assert added.exit_code == 0 and "next start" in added.output
    assert server.plugins().procedures() == ["apoc.coll.*"]
    removed = runner.invoke(main, ["db", "plugins", "remove", "org.neo4j.procedure:apoc-core"],
                            env=env_for(settings), catch_exceptions=False)
    assert removed.exit_code == 0, removed.output
    assert server.plugins().entries() == [] and not (server.plugins_dir / jar).exists()
    missing = runner.invoke(main, ["db", "plugins", "remove", "org.neo4j.procedure:apoc-core"], env=env_for(settings))
    assert missing.exit_code == 2 and "no plugin" in missing.output


@pytest.mark.parametrize("text", ["apoc", "org.neo4j.procedure:apoc-core", "a:b:c:d:e", "g:a:1=apoc.**"])
def test_bad_coordinates_say_what_to_write(text):
    with pytest.raises(ConfigError) as err:
        parse_plugin(text)
    assert "group:artifact:version" in str(err.value) or "namespace" in str(err.value)


def test_unresolvable_plugin_is_a_clear_error(tmp_path):
    store = PluginStore(tmp_path / "plugins")
    from kgtool.errors import ServerError

    with pytest.raises(ServerError) as err:
        store.add(parse_plugin("io.kgtool.nonexistent:no-such-plugin:0.0.1"))
    assert "io.kgtool.nonexistent:no-such-plugin:0.0.1" in str(err.value)
    assert store.entries() == []
