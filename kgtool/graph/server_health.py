"""Why the local server cannot serve, read from its logs; and the log files' bounds.

A database that panicked (a full disk under its transaction log, most often) keeps its process alive and
its Bolt port open while every statement fails; its neo4j.log says "Started." and the cause is only in
debug.log. A store whose transaction log was cut short by a full disk refuses to start ("Error reading
transaction logs, recovery not possible"). `diagnose` reads the current server session of debug.log
(and what neo4j.log and console.log gained) for these, and names the cause and the way out in one
message; the start and connect paths raise it instead of waiting out their time limit.

The server's own log files are bounded by the log4j2 configurations written here on every start (the
runtime's embedded defaults roll at 20 MB but also copy neo4j.log to standard output, which kgtool keeps
in console.log, unbounded): `LOG_CONFIGS`.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

# the last part of debug.log read: a session's panic is logged near its end
_TAIL_BYTES = 1 << 20
# the first line each server session writes to debug.log
_SESSION_START = "Logging config in use"

_PANIC = re.compile(r"Database panic|has encountered a critical error, and needs to be restarted|Server is in panic|"
                    r"DbmsInPanic")
_NO_SPACE = re.compile(r"No space left on device|Disk quota exceeded|ENOSPC")
_CORRUPT_LOGS = re.compile(r"Error reading transaction logs, recovery not possible|"
                           r"Transaction logs are missing and recovery is not possible")

# the documented way to start a store whose transaction log is damaged (Neo4j 5.26: the message of
# "recovery not possible" names the first; the second lets it start when log files are missing)
RECOVERY_SETTINGS = {
    "internal.dbms.tx_log.fail_on_corrupted_log_files": "false",
    "db.recovery.fail_on_missing_files": "false",
}

# bytes a log file reaches before it is rolled, and how many rolled files are kept
LOG_ROLL_SIZE = "10 MB"
LOG_KEEP = 3
# console.log (the JVM's standard output) is rolled by kgtool at a start past this size
CONSOLE_ROLL_BYTES = 10 * 1024 * 1024


@dataclass
class Diagnosis:
    cause: str      # what happened, in a person's words
    way_out: str    # what to do
    evidence: str   # the log line that says so
    kind: str       # panic-disk-full | panic | corrupt-logs

    def message(self) -> str:
        return f"{self.cause}. {self.way_out}\n  > {self.evidence.strip()[:300]}"


def current_session(debug_log: Path) -> list[str]:
    """The lines of debug.log's last server session (from its last start line; the tail if none)."""
    if not debug_log.is_file():
        return []
    size = debug_log.stat().st_size
    with debug_log.open("rb") as fh:
        fh.seek(max(0, size - _TAIL_BYTES))
        lines = fh.read().decode("utf-8", errors="replace").splitlines()
    starts = [i for i, line in enumerate(lines) if _SESSION_START in line]
    return lines[starts[-1]:] if starts else lines


def lines_since(path: Path, offset: int) -> list[str]:
    """The lines `path` gained since it was `offset` bytes long (all of it if it was rolled since)."""
    if not path.is_file():
        return []
    size = path.stat().st_size
    start = offset if size >= offset else 0
    with path.open("rb") as fh:
        fh.seek(max(start, size - _TAIL_BYTES))
        return fh.read().decode("utf-8", errors="replace").splitlines()


def diagnose(logs_dir: Path, data_dir: Path, *, since: int | None = None,
             extra_lines: list[str] = ()) -> Diagnosis | None:
    """A panic or an unrecoverable store, or None: read from what debug.log gained since offset `since` (a start
    under way), else from its current session (a running server), and from `extra_lines`."""
    debug_log = Path(logs_dir) / "debug.log"
    session = current_session(debug_log) if since is None else lines_since(debug_log, since)
    lines = [*session, *extra_lines]
    corrupt = next((line for line in lines if _CORRUPT_LOGS.search(line)), None)
    if corrupt:
        return Diagnosis(
            "the store's transaction log is damaged (cut short, most often by a full disk) and Neo4j cannot "
            "recover from it",
            "Make sure the disk has free space, then run `kgtool db doctor --recover`: it copies the data "
            "directory aside and starts once with Neo4j's documented recovery setting "
            "(internal.dbms.tx_log.fail_on_corrupted_log_files=false), which keeps what it can read and "
            "DROPS the damaged end of the log: the transactions in it are lost (restore the copy, or re-run "
            "the ingests that wrote them)", corrupt, "corrupt-logs")
    panic = next((line for line in lines if _PANIC.search(line)), None)
    if panic is None:
        return None
    no_space = next((line for line in lines if _NO_SPACE.search(line)), None)
    if no_space:
        from kgtool.core.files import free_bytes, mb

        return Diagnosis(
            f"the database panicked because its disk is full ({data_dir} has {mb(free_bytes(data_dir))} free); "
            "it answers no statement until it is restarted",
            "Free space on that filesystem, then restart the server: `kgtool db stop && kgtool db start` "
            "(then `kgtool db doctor` finds what the interrupted commands left)", no_space, "panic-disk-full")
    return Diagnosis(
        "the database panicked (a critical error; debug.log names it) and answers no statement until it is "
        "restarted", "Restart it: `kgtool db stop && kgtool db start`; if it panics again, "
                     "`kgtool db logs` shows why", panic, "panic")


def _appender(name: str, file: str, pattern: str, layout: str = "PatternLayout") -> str:
    return f"""        <RollingRandomAccessFile name="{name}" fileName="${{config:server.directories.logs}}/{file}"
                                 filePattern="$${{config:server.directories.logs}}/{file}.%02i">
            <{layout} pattern="{pattern}"/>
            <Policies><SizeBasedTriggeringPolicy size="{LOG_ROLL_SIZE}"/></Policies>
            <DefaultRolloverStrategy fileIndex="min" max="{LOG_KEEP}"/>
        </RollingRandomAccessFile>
"""


_PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSSZ}{GMT+0} %-5p %m%n"

# server.logs.config: the runtime's default-server-logs.xml with kgtool's bounds
SERVER_LOGS = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- written by kgtool on every start: "
               "bounded logs (kgtool.graph.server_health) -->\n<Configuration status=\"ERROR\">\n    <Appenders>\n"
               + _appender("DebugLog", "debug.log", "%d{yyyy-MM-dd HH:mm:ss.SSSZ}{GMT+0} %-5p [%c{1.}] %m%n",
                           "Neo4jDebugLogLayout")
               + _appender("HttpLog", "http.log", _PATTERN) + _appender("QueryLog", "query.log", _PATTERN)
               + _appender("SecurityLog", "security.log", _PATTERN) + """    </Appenders>
    <Loggers>
        <Root level="INFO"><AppenderRef ref="DebugLog"/></Root>
        <Logger name="QueryLogger" level="INFO" additivity="false"><AppenderRef ref="QueryLog"/></Logger>
        <Logger name="HttpLogger" level="INFO" additivity="false"><AppenderRef ref="HttpLog"/></Logger>
        <Logger name="SecurityLogger" level="INFO" additivity="false"><AppenderRef ref="SecurityLog"/></Logger>
    </Loggers>
</Configuration>
""")

# server.logs.user.config: neo4j.log, rolled, and not copied to standard output (console.log)
USER_LOGS = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- written by kgtool on every start: "
             "bounded logs (kgtool.graph.server_health) -->\n<Configuration>\n    <Appenders>\n"
             + _appender("RollingFile", "neo4j.log", _PATTERN) + """    </Appenders>
    <Loggers>
        <Root level="info"><AppenderRef ref="RollingFile"/></Root>
    </Loggers>
</Configuration>
""")

LOG_CONFIGS = {"server-logs.xml": ("server.logs.config", SERVER_LOGS),
               "user-logs.xml": ("server.logs.user.config", USER_LOGS)}


def write_log_configs(conf_dir: Path) -> dict[str, str]:
    """Write the bounded log4j2 configurations into `conf_dir` (0600); the neo4j.conf settings naming them."""
    settings = {}
    for file_name, (key, text) in LOG_CONFIGS.items():
        path = Path(conf_dir) / file_name
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        path.chmod(0o600)
        settings[key] = str(path)
    return settings


def roll_console_log(console_log: Path) -> None:
    """Keep console.log (the JVM's standard output, which no log4j policy rolls) under its bound."""
    if console_log.is_file() and console_log.stat().st_size > CONSOLE_ROLL_BYTES:
        os.replace(console_log, console_log.with_name(console_log.name + ".1"))
