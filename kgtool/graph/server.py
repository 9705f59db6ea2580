"""The local Neo4j server: the real Community DBMS, without Docker.

Maven resolves `org.neo4j:neo4j` (whose `org.neo4j.server.CommunityEntryPoint`
is what the `neo4j` launcher script runs) from Maven Central into a runtime
directory once; later starts use the cached jars and need no network. The
server's home (conf, data, logs, run) lives under `<home>/neo4j`. Bolt listens
on 127.0.0.1 only, HTTP is off, and authentication is on with a generated
password kept in a file only its owner can read.

neo4j.conf is written anew on every start from kgtool's settings; what a user
adds goes in `<home>/neo4j/conf/user.conf`, merged after kgtool's settings
(kgtool.graph.user_conf says what it may not change). Plugins (jars from
Maven, kgtool.graph.plugins) live in `<home>/neo4j/plugins`, which is on the
server's classpath after its own jars, and their procedure namespaces are
unrestricted.
"""
from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from kgtool.config import Settings
from kgtool.core.process import process_alive
from kgtool.errors import ServerError
from kgtool.graph import server_health, user_conf
from kgtool.graph.plugins import PluginStore, parse_plugin_setting
from kgtool.graph.host import (  # noqa: F401  (private_home and free_port are imported from here too)
    _PRIVATE_UMASK,
    _dir_size,
    _java_major,
    _port_in_use,
    _private_dir,
    _restrict_tree,
    free_port,
    private_home,
)

ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
ADMIN_TOOL = "org.neo4j.cli.AdminTool"
SUPPORTED_JAVA = (17, 21)
_JVM_OPTIONS = [
    "-XX:+UseG1GC",
    "-XX:+ExitOnOutOfMemoryError",
    "-Dfile.encoding=UTF-8",
    # Neo4j's page cache and Netty want these on Java 17+; without them it
    # falls back to slower code paths and logs warnings.
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
]


@dataclass
class ServerStatus:
    running: bool
    uri: str
    pid: int | None
    version: str | None
    store_bytes: int
    home: Path


def new_password() -> str:
    """A random 192-bit password in hex: never starts with '-', which the admin
    tool would read as an option (token_urlsafe did, one start in 64)."""
    return secrets.token_hex(24)


class LocalServer:
    """Prepare, start, stop and inspect the local Neo4j Community server."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.home = Path(settings.home) / "neo4j"
        self.runtime = settings.runtime_root / f"neo4j-{settings.neo4j_version}"
        self.port = int(settings.neo4j_port)
        # extra neo4j.conf settings for one start (`kgtool db doctor --recover`: kgtool.graph.recover)
        self.once_settings: dict[str, str] = {}

    # --- paths -----------------------------------------------------------
    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.port}"

    @property
    def password_file(self) -> Path:
        return self.home / "password"

    @property
    def pid_file(self) -> Path:
        return self.home / "run" / "kgtool-neo4j.pid"

    @property
    def log_file(self) -> Path:
        return self.home / "logs" / "neo4j.log"

    @property
    def console_file(self) -> Path:
        return self.home / "logs" / "console.log"

    @property
    def debug_log(self) -> Path:
        return self.home / "logs" / "debug.log"

    @property
    def lib_dir(self) -> Path:
        return self.runtime / "lib"

    @property
    def plugins_dir(self) -> Path:
        return self.home / "plugins"

    @property
    def user_conf_file(self) -> Path:
        return self.home / "conf" / user_conf.FILE_NAME

    def plugins(self) -> PluginStore:
        if not self.plugins_dir.is_dir():  # `db plugins add` before the first start
            private_home(self.settings.home)
            _private_dir(self.home)
            _private_dir(self.plugins_dir)
        return PluginStore(self.plugins_dir)

    def classpath(self) -> str:
        """The server's jars, then the plugins: a plugin jar that bundles an older copy of a
        library the server has (APOC 5.26.0 carries commons-lang3) must not shadow the server's."""
        return os.pathsep.join([str(self.lib_dir / "*"), str(self.plugins_dir / "*")])

    def sync_plugins(self) -> list[str]:
        """Fetch the plugins KGTOOL_NEO4J_PLUGINS names and are not here yet; their coordinates."""
        specs = parse_plugin_setting(self.settings.neo4j_plugins)
        store = self.plugins()
        if not specs and not store.entries():
            return []
        return store.sync(specs)

    # --- preparation -----------------------------------------------------
    def resolve_jars(self) -> Path:
        """Resolve the server's jars with Maven once; return the lib directory."""
        marker = self.runtime / ".complete"
        if marker.exists():
            return self.lib_dir
        mvn = shutil.which("mvn")
        if not mvn:
            raise ServerError(
                "Maven (mvn) is needed once to fetch the Neo4j server jars but is not on PATH. "
                "Install it (Debian/Ubuntu: apt-get install maven), or set NEO4J_URI to use another Neo4j server."
            )
        self.runtime.mkdir(parents=True, exist_ok=True)
        pom = resources.files("kgtool.graph").joinpath("neo4j-pom.xml")
        staging = self.runtime / "lib.partial"
        shutil.rmtree(staging, ignore_errors=True)
        with resources.as_file(pom) as pom_path:
            cmd = [
                mvn, "-q", "-B", "-f", str(pom_path), "dependency:copy-dependencies",
                f"-DoutputDirectory={staging}", f"-Dneo4j.version={self.settings.neo4j_version}",
            ]
            proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
            raise ServerError(f"Maven could not resolve Neo4j {self.settings.neo4j_version}:\n{tail}")
        shutil.rmtree(self.lib_dir, ignore_errors=True)
        staging.rename(self.lib_dir)
        marker.write_text(self.settings.neo4j_version)
        return self.lib_dir

    def java(self) -> str:
        """A java executable of a version Neo4j 5.26 runs on (17 or 21)."""
        candidates = []
        if os.environ.get("JAVA_HOME"):
            candidates.append(Path(os.environ["JAVA_HOME"]) / "bin" / "java")
        on_path = shutil.which("java")
        if on_path:
            candidates.append(Path(on_path))
        jvm_root = Path("/usr/lib/jvm")
        if jvm_root.is_dir():
            candidates.extend(sorted(jvm_root.glob("*/bin/java")))
        seen = []
        for java in candidates:
            if not java.exists() or java in seen:
                continue
            seen.append(java)
            version = _java_major(java)
            if version in SUPPORTED_JAVA:
                return str(java)
        found = ", ".join(f"{j} ({_java_major(j)})" for j in seen) or "none"
        raise ServerError(
            "Neo4j 5.26 needs Java 17 or 21 and none was found "
            f"(found: {found}). Install one (Debian/Ubuntu: apt-get install openjdk-17-jre-headless) "
            "or point JAVA_HOME at it."
        )

    def _write_config(self) -> None:
        private_home(self.settings.home)
        for sub in ("conf", "data", "logs", "run", "plugins", "import"):
            _private_dir(self.home / sub)
        # a store made by an older kgtool (or another umask) may still be readable by everyone
        _restrict_tree(self.home)
        conf = {
            "server.default_listen_address": "127.0.0.1",
            "server.default_advertised_address": "127.0.0.1",
            "server.bolt.enabled": "true",
            "server.bolt.listen_address": f"127.0.0.1:{self.port}",
            "server.http.enabled": "false",
            "server.https.enabled": "false",
            "dbms.security.auth_enabled": "true",
            "server.directories.data": str(self.home / "data"),
            "server.directories.logs": str(self.home / "logs"),
            "server.directories.run": str(self.home / "run"),
            "server.directories.plugins": str(self.home / "plugins"),
            "server.directories.import": str(self.home / "import"),
            "server.memory.pagecache.size": self.settings.neo4j_pagecache,
            "db.tx_log.rotation.retention_policy": "2 days 1G",
            # keep a fresh store small: no 250 MB preallocated transaction logs
            "db.tx_log.preallocate": "false",
            "db.tx_log.rotation.size": "64M",
            "dbms.usage_report.enabled": "false",
            # log files rolled at a bound (kgtool.graph.server_health): a panicking store logs errors fast
            **server_health.write_log_configs(self.home / "conf"),
            **self.once_settings,
        }
        allow_csv = _truthy(self.settings.neo4j_allow_csv_import)
        if not allow_csv:
            # LOAD CSV would let any statement read server files or make the server fetch URLs
            # (a server-side request); kgtool ingests through the driver and needs neither
            conf["dbms.security.allow_csv_import_from_file_urls"] = "false"
            conf["internal.dbms.cypher_ip_blocklist"] = "0.0.0.0/0,::/0"
        procedures = self.plugins().procedures()
        if procedures:
            # plugins such as APOC need their procedures unsandboxed to reach the kernel API
            conf["dbms.security.procedures.unrestricted"] = ",".join(procedures)
        # read (and refused) before anything is written: a bad line leaves the last good config
        user = user_conf.read_user_conf(self.user_conf_file, allow_csv_import=allow_csv)
        merged = user_conf.merge(conf, user, list_keys=("dbms.security.procedures.unrestricted",
                                                        "dbms.security.procedures.allowlist"))
        text = (f"# written by kgtool on every start; edit kgtool settings, or add your own settings to "
                f"{self.user_conf_file} (merged in after kgtool's)\n")
        text += "".join(f"{k}={v}\n" for k, v in merged)
        conf_file = self.home / "conf" / "neo4j.conf"
        fd = os.open(conf_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        conf_file.chmod(0o600)  # O_CREAT's mode does not apply to a file that already existed

    def password(self) -> str:
        if not self.password_file.exists():
            raise ServerError(f"no password file at {self.password_file}; run `kgtool db start` first")
        return self.password_file.read_text().strip()

    def _ensure_password(self, java: str) -> None:
        """Generate and set the initial password before the first start."""
        if self.password_file.exists():
            return
        if (self.home / "data" / "dbms").exists():
            raise ServerError(
                f"{self.home} holds a database but its password file {self.password_file} is missing; "
                "restore the file, or remove the directory to start afresh"
            )
        password = new_password()
        proc = subprocess.run(
            [java, "-cp", str(self.lib_dir / "*"), ADMIN_TOOL, "dbms", "set-initial-password", password],
            env=self._env(), cwd=self.home, capture_output=True, text=True, umask=_PRIVATE_UMASK,
        )
        if proc.returncode != 0:
            raise ServerError(f"could not set the initial password:\n{proc.stdout}{proc.stderr}")
        fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(password + "\n")

    def _env(self) -> dict:
        env = dict(os.environ)
        env["NEO4J_HOME"] = str(self.home)
        env["NEO4J_CONF"] = str(self.home / "conf")
        return env

    # --- lifecycle -------------------------------------------------------
    def pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        return pid if process_alive(pid) else None

    def start(self, timeout: float = 180.0) -> bool:
        """Start the server and wait until Bolt answers. False if it was already running."""
        if self.pid() and self._bolt_answers():
            return False
        if self.pid():
            # a previous start is still coming up
            self._wait_for_bolt(self.pid(), timeout)
            return False
        if _port_in_use(self.port):
            raise ServerError(
                f"port {self.port} on 127.0.0.1 is taken by another process; "
                "set KGTOOL_NEO4J_PORT to a free port, or NEO4J_URI to use that server"
            )
        java = self.java()
        self.resolve_jars()
        self.sync_plugins()
        self._write_config()
        self._ensure_password(java)
        cmd = [
            java, f"-Xms{self.settings.neo4j_heap}", f"-Xmx{self.settings.neo4j_heap}", *_JVM_OPTIONS,
            "-cp", self.classpath(), ENTRY_POINT,
            f"--home-dir={self.home}", f"--config-dir={self.home / 'conf'}",
        ]
        server_health.roll_console_log(self.console_file)
        log_marks = self._log_marks()  # what the logs held before: a failed start quotes only what it added
        fd = os.open(self.console_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        console = os.fdopen(fd, "ab")
        proc = subprocess.Popen(
            cmd, cwd=self.home, env=self._env(), stdout=console, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True, umask=_PRIVATE_UMASK,
        )
        console.close()
        fd = os.open(self.pid_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(str(proc.pid))
        try:
            self._wait_for_bolt(proc.pid, timeout, proc, debug_since=log_marks.get(self.debug_log, 0))
        except ServerError as exc:
            self.stop()
            diagnosis = self.diagnose(since=log_marks.get(self.debug_log, 0))
            if diagnosis is not None:
                raise ServerError(f"Neo4j could not start: {diagnosis.message()}") from None
            raise ServerError(f"{exc}\n{self.start_failure_reason(log_marks)}") from None
        self.abandon_interrupted_runs()
        return True

    def abandon_interrupted_runs(self) -> int:
        """Close the runs a previous server left 'running' as 'abandoned'; how many there were.

        Called right after this server has started, when no client can still be
        answering them: a run is only left open when the server (or the client)
        died before the runner could record how it ended.
        """
        from neo4j import GraphDatabase

        from kgtool.graph import queries

        from neo4j.exceptions import DriverError, Neo4jError

        try:
            with GraphDatabase.driver(self.uri, auth=("neo4j", self.password())) as driver:
                with driver.session(database="neo4j") as session:
                    rows = list(session.run(queries.text("trace/abandon_running"), {
                        "error": "the Neo4j server stopped while this run was open (killed or crashed); "
                                 "it was closed when the server was next started"}))
        except (DriverError, Neo4jError):
            return 0  # bookkeeping: a server that answers Bolt is started, whatever this says
        return int(rows[0]["abandoned"]) if rows else 0

    def diagnose(self, since: int | None = None):
        """A panic or an unrecoverable store the server's logs name (kgtool.graph.server_health), or None."""
        return server_health.diagnose(self.home / "logs", self.home / "data", since=since)

    def _wait_for_bolt(self, pid: int, timeout: float, proc: subprocess.Popen | None = None, *,
                       debug_since: int | None = None) -> None:
        """Wait until Bolt answers; a server whose logs say it panicked or cannot recover is reported at once
        (debug_since: debug.log's size when this start began; None: a server already running)."""
        deadline = time.monotonic() + timeout
        next_look = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                raise ServerError(f"Neo4j exited with code {proc.returncode} while starting.")
            if proc is None and not process_alive(pid):
                raise ServerError(f"Neo4j (pid {pid}) died while starting.")
            if self._bolt_answers():
                return
            if time.monotonic() >= next_look:
                next_look = time.monotonic() + 2.0
                diagnosis = self.diagnose(since=debug_since)
                if diagnosis is not None:
                    raise ServerError(f"Neo4j (pid {pid}) is not serving: {diagnosis.message()}")
            time.sleep(0.25)
        raise ServerError(f"Neo4j did not answer on {self.uri} within {timeout:.0f} s.\n{self.log_tail()}")

    def _bolt_answers(self) -> bool:
        if not _port_in_use(self.port):
            return False
        from neo4j import GraphDatabase
        from neo4j.exceptions import Neo4jError, ServiceUnavailable, SessionExpired

        from kgtool.graph import queries

        try:
            # short timeouts: while the server boots, a connection can be
            # accepted but not answered, and the default waits are minutes
            with GraphDatabase.driver(
                self.uri, auth=("neo4j", self.password()), connection_timeout=3.0,
                connection_acquisition_timeout=5.0, max_transaction_retry_time=0.0,
            ) as driver:
                driver.verify_connectivity()
                with driver.session(database="neo4j") as session:
                    session.run(queries.text("ping")).consume()
            return True
        except (ServiceUnavailable, SessionExpired, OSError, Neo4jError, ServerError):
            return False

    def stop(self, timeout: float = 60.0) -> bool:
        """Stop gracefully (SIGTERM, then SIGKILL after `timeout`). False if it was not running."""
        pid = self.pid()
        if not pid:
            self.pid_file.unlink(missing_ok=True)
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and process_alive(pid):
            time.sleep(0.2)
        if process_alive(pid):
            os.kill(pid, signal.SIGKILL)
            time.sleep(0.5)
        self.pid_file.unlink(missing_ok=True)
        return True

    def status(self) -> ServerStatus:
        pid = self.pid()
        running = bool(pid) and self._bolt_answers()
        version = None
        if running:
            from neo4j import GraphDatabase

            with GraphDatabase.driver(self.uri, auth=("neo4j", self.password())) as driver:
                version = driver.get_server_info().agent
        return ServerStatus(running, self.uri, pid, version, _dir_size(self.home / "data"), self.home)

    def _log_marks(self) -> dict[Path, int]:
        """The size of each log file now, so what a start adds can be told from older lines."""
        return {path: (path.stat().st_size if path.exists() else 0)
                for path in (self.log_file, self.console_file, self.debug_log)}

    def start_failure_reason(self, marks: dict[Path, int], limit: int = 20) -> str:
        """The lines the logs gained since `marks` that say why the server stopped (errors and their
        causes), quoted; the new lines' tail when none stands out; the old tail when the logs gained nothing."""
        new: list[str] = []
        for path, offset in marks.items():
            if path.exists():
                with path.open("rb") as fh:
                    fh.seek(offset if path.stat().st_size >= offset else 0)
                    new.extend(fh.read().decode("utf-8", errors="replace").splitlines())
        if not new:
            return f"The logs say nothing new; their last lines:\n{self.log_tail(15)}"
        reasons = [line for line in new if _SAYS_WHY.search(line)]
        quoted = list(dict.fromkeys(line.rstrip() for line in (reasons or new[-limit:])))[:limit]
        return ("Why, from the server's log (`kgtool db logs` shows more):\n"
                + "\n".join(f"  > {line}" for line in quoted))

    def log_tail(self, lines: int = 30) -> str:
        parts = []
        for path in (self.log_file, self.console_file):
            if path.exists():
                text = path.read_text(errors="replace").splitlines()[-lines:]
                parts.append(f"--- {path} (last {len(text)} lines) ---\n" + "\n".join(text))
        return "\n".join(parts) or f"(no log files under {self.home / 'logs'})"


# log lines that give the reason a start failed: errors, exceptions and their causes, refused settings
_SAYS_WHY = re.compile(r"\b(ERROR|FATAL|Exception|Caused by|Unrecognized setting|Invalid|invalid|failed|Failed|"
                       r"refus|cannot|Cannot|not allowed)\b")

def check_ingest_space(settings: Settings, source) -> None:
    """DiskSpaceError unless the local store's disk has room for what ingesting `source` may write there
    (the store, its indexes and transaction log: about four times the input, kept free beyond it)."""
    from kgtool.core.files import check_free_space

    source = Path(source)
    size = _dir_size(source) if source.is_dir() else (source.stat().st_size if source.is_file() else 0)
    check_free_space(Path(settings.home) / "neo4j" / "data", 4 * size, f"ingesting {source}")


def _truthy(value) -> bool:
    # from the environment or a config file the setting arrives as text
    return value is True or str(value).strip().lower() in ("1", "true", "yes", "on")
