"""Driver and sessions: the only place that talks to Neo4j.

`Database.connect(settings)` uses NEO4J_URI/USER/PASSWORD/DATABASE when set (any
server: local, Docker, a cluster, Aura with `neo4j+s://`) and otherwise starts
the local server on first use. Statements are always named (see queries.py)
and values always travel as parameters.
"""
from __future__ import annotations

import logging
import os
import random
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Protocol, TypeVar

from kgtool.config import Settings
from kgtool.errors import ConfigError, DatabaseError, DatabaseUnavailable, ReadOnlyViolation, describe
from kgtool.graph import queries, warmup


# Bolt is the protocol kgtool speaks; the driver's http(s) support is an
# experimental query API that needs extra packages and has no transactions
# of the kind kgtool uses.
BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")

T = TypeVar("T")


class Runner(Protocol):
    """Runs a named statement with its parameters in one transaction and returns its rows
    as dicts; with rows=False it only sends the statement and returns None at once."""

    def __call__(self, name: str, params: dict, *, rows: bool = True) -> list[dict] | None: ...

# seconds to wait before each retry of a statement the server rolled back as transient (run_in)
TRANSIENT_RETRY_DELAYS = (0.05, 0.2, 0.5, 1.0, 2.0)

# Client errors that mean "another client changed the graph under this statement", not "this statement
# is wrong": a node or relationship the statement had found was deleted (a `kgtool delete` while an
# evaluation reads) before it read its properties. The server rolled the statement back, so running it
# again on the graph as it is now is safe; it then no longer finds what was deleted.
CONCURRENT_CHANGE_CODES = frozenset({"Neo.ClientError.Statement.EntityNotFound"})

# the file the driver's own log lines go to (under KGTOOL_HOME), so a retried deadlock is not
# printed to the person running the command: a retry that succeeds is silent, one that fails
# reaches them as one kgtool error
DRIVER_LOG = Path("logs") / "kgtool.log"


def retryable(exc: BaseException, *, transient: bool = True) -> bool:
    """True for a failure the server rolled back because of other clients: a concurrent deletion
    (CONCURRENT_CHANGE_CODES) or, with `transient`, a transient error (deadlock, lock wait)."""
    from neo4j.exceptions import ClientError, TransientError

    if isinstance(exc, TransientError):
        return transient
    return isinstance(exc, ClientError) and getattr(exc, "code", None) in CONCURRENT_CHANGE_CODES


def retrying(call: Callable[[], T], delays=TRANSIENT_RETRY_DELAYS, *, transient: bool = True) -> T:
    """`call()`, run again after a short random pause while it fails with a `retryable` error
    (transient=False for managed transactions, which the driver already retries on transient errors)."""
    for delay in (*delays, None):
        try:
            return call()
        except Exception as exc:
            if delay is None or not retryable(exc, transient=transient):
                raise
            time.sleep(delay * random.uniform(0.5, 1.5))  # apart, so the same two do not collide again


class Stopped(DatabaseError):
    """The process is being interrupted: no new statement starts (see kgtool.interrupt)."""


# set while the process is being interrupted: answers still running in other threads stop at
# their next statement instead of finishing a question nobody will see (a process-wide state,
# as a signal is: see kgtool.interrupt, which sets and clears it)
_STOPPING = threading.Event()


_STOP_REASON = ["the command is being interrupted"]  # what a refused statement says (the signal's name)


def stop_statements(reason: str = "the command is being interrupted") -> None:
    _STOP_REASON[0] = reason
    _STOPPING.set()


def allow_statements() -> None:
    _STOPPING.clear()


def statements_stopped() -> bool:
    return _STOPPING.is_set()


_DRIVER_LOG_LOCK = threading.Lock()


def send_driver_logs_to_file(home) -> Path:
    """Route the Neo4j driver's log records to <home>/logs/kgtool.log instead of stderr; idempotent."""
    path = Path(home) / DRIVER_LOG
    logger = logging.getLogger("neo4j")
    with _DRIVER_LOG_LOCK:
        for handler in logger.handlers:
            if isinstance(handler, logging.FileHandler) and Path(handler.baseFilename) == path.resolve():
                return path
        from kgtool.core.files import PRIVATE_FILE, private_dir, tighten

        private_dir(path.parent)  # 0700: the driver's log names the server and the statements' errors
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_FILE))
        tighten(path, PRIVATE_FILE)  # a log an older kgtool left readable
        handler = logging.FileHandler(path, encoding="utf-8", delay=True)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
        # one file per home: a test session or a user switching homes keeps only the newest
        for old in [h for h in logger.handlers if getattr(h, "_kgtool", False)]:
            logger.removeHandler(old)
            old.close()
        handler._kgtool = True
        logger.addHandler(handler)
        if logger.level == logging.NOTSET or logger.level > logging.INFO:
            logger.setLevel(logging.INFO)
        logger.propagate = False  # never to the root logger's stderr (nor Python's last-resort handler)
    return path


def tighten_tree_once(root: Path) -> None:
    """Everything under `root` made its owner's only, when `root` itself is not yet (a tree kgtool made is)."""
    from kgtool.graph.host import _restrict_tree

    if root.is_dir() and root.stat().st_mode & 0o077:
        _restrict_tree(root)


def check_uri(uri: str) -> str:
    """The URI if it names a Bolt server; otherwise a ConfigError saying what to write instead."""
    uri = (uri or "").strip()
    scheme = uri.split("://", 1)[0].lower() if "://" in uri else ""
    if scheme not in BOLT_SCHEMES:
        given = f"its scheme is {scheme!r}" if scheme else "it has no scheme"
        raise ConfigError(
            f"NEO4J_URI={uri!r} cannot be used: {given}, and kgtool talks to Neo4j over Bolt. Use "
            "bolt://HOST:7687 (neo4j://HOST:7687 for a cluster, neo4j+s://HOST for Aura), or unset "
            "NEO4J_URI to use the local server"
        )
    return uri


class Database:
    def __init__(self, driver, database: str, settings: Settings, uri: str):
        from neo4j import GraphDatabase

        self.driver = driver
        self.database = database
        self.settings = settings
        self.uri = uri
        # every session of this Database passes on the bookmarks of the ones before it, so on a
        # cluster (neo4j:// routing, reads on followers) a run reads what it has just written
        self.bookmarks = GraphDatabase.bookmark_manager()

    @classmethod
    def connect(cls, settings: Settings | None = None, *, start: bool = True) -> "Database":
        from neo4j import GraphDatabase

        settings = settings or Settings.load()
        from kgtool.graph.server import private_home

        private_home(settings.home)
        tighten_tree_once(Path(settings.home) / "cache")  # an older kgtool left it 755/644
        send_driver_logs_to_file(settings.home)
        if settings.uses_local_server:
            from kgtool.graph.server import LocalServer

            server = LocalServer(settings)
            if start:
                server.start()
            uri, auth = server.uri, ("neo4j", server.password())
        else:
            uri = check_uri(settings.neo4j_uri)
            auth = (settings.neo4j_user, settings.neo4j_password or "")
        try:
            # notifications (e.g. "property key does not exist" before any fact has it) are noise here
            driver = GraphDatabase.driver(uri, auth=auth, max_connection_pool_size=64,
                                          notifications_min_severity="OFF")
        except Exception as exc:
            raise describe(exc) from exc
        try:
            driver.verify_connectivity()
        except Exception as exc:
            driver.close()
            reason = describe(exc)
            if isinstance(reason, ConfigError):
                raise reason from exc
            raise DatabaseUnavailable(
                f"cannot connect to Neo4j at {uri}: {' '.join(str(exc).split())}. Check NEO4J_URI/NEO4J_USER/"
                "NEO4J_PASSWORD, or unset NEO4J_URI to use the local server (`kgtool db start`)."
            ) from exc
        return cls(driver, settings.neo4j_database, settings, uri)

    def close(self) -> None:
        self.driver.close()

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def session(self, read_only: bool = False):
        from neo4j import READ_ACCESS, WRITE_ACCESS

        return self.driver.session(
            database=self.database, default_access_mode=READ_ACCESS if read_only else WRITE_ACCESS,
            bookmark_manager=self.bookmarks,
        )

    # --- named statements ------------------------------------------------
    # The driver retries a managed transaction on transient errors itself; `retrying` adds the
    # concurrent deletions it leaves to the caller (see CONCURRENT_CHANGE_CODES).
    def read(self, name: str, /, **params) -> list[dict]:
        """Run a named read in a read transaction; rows as dicts."""
        text = queries.text(name)
        warmup.note(name, params)

        def once():
            with self.session(read_only=True) as session:
                return session.execute_read(lambda tx: _rows(tx.run(text, params)))

        return retrying(once, transient=False)

    def write(self, name: str, /, **params) -> list[dict]:
        """Run a named write in one transaction (all or nothing); rows as dicts."""
        text = queries.text(name)

        def once():
            with self.session() as session:
                return session.execute_write(lambda tx: _rows(tx.run(text, params)))

        return retrying(once, transient=False)

    def run_autocommit(self, name: str, /, **params) -> list[dict]:
        """Run a named statement outside an explicit transaction.

        Only for statements that manage their own transactions
        (`CALL { ... } IN TRANSACTIONS`), such as clearing a large graph.
        """
        with self.session() as session:
            return _rows(session.run(queries.text(name), params))

    # --- inside a caller's session (one session per answer keeps latency low) ---
    # Each of these is a single statement run as its own auto-commit transaction:
    # atomic like a managed transaction, but one network round trip instead of two,
    # which matters on the per-hop path (a 4-hop answer makes ~15 of them).
    @staticmethod
    def run_in(session, name: str, /, **params) -> list[dict]:
        """Run one named statement in `session`; run again when the server rolled it back
        because of other clients (see `retryable`).

        The driver retries only managed transactions. A TransientError (a lock
        deadlock between parallel answers that MERGE the same Question, a lock
        wait that timed out) or a node deleted under the statement means the
        server rolled the statement back, so running it again cannot write
        twice. Connection losses are not retried: there a commit may already
        have happened. Inside an explicit transaction (`session` is one) nothing
        is retried: the failure ended the transaction. While the process is being
        interrupted (`stop_statements`), no statement starts.
        """
        if _STOPPING.is_set():
            raise Stopped(f"stopped: {_STOP_REASON[0]}")
        text = queries.text(name)
        warmup.note(name, params)
        if not hasattr(session, "begin_transaction"):  # a transaction, not a session
            return _rows(session.run(text, params))
        return retrying(lambda: _rows(session.run(text, params)))

    def write_many(self, steps: Iterable[tuple[str, dict]]) -> list[list[dict]]:
        """Several named writes in ONE transaction: a failure leaves no partial state."""
        steps = list(steps)
        return self.write_transaction(lambda run: [run(name, params) for name, params in steps])

    def write_transaction(self, work: Callable[[Runner], T]) -> T:
        """`work(run)` in ONE write transaction, where `run(name, params)` runs a named statement
        in it and returns its rows: for writes whose later statements depend on earlier rows.

        `run(name, params, rows=False)` sends a statement whose rows are not needed without
        waiting for it: the server runs it while the client packs and sends the next one
        (Bolt runs a transaction's statements in order). Its errors are raised by the next
        statement or the commit, inside this transaction, so nothing of it stays.

        The driver runs `work` again on a transient error, so it must do nothing else that
        cannot be done twice."""
        def in_transaction(tx):
            def run(name: str, params: dict, *, rows: bool = True) -> list[dict] | None:
                result = tx.run(queries.text(name), params)
                warmup.note(name, params)
                return _rows(result) if rows else None

            return work(run)

        def once():
            with self.session() as session:
                return session.execute_write(in_transaction)

        return retrying(once, transient=False)

    def apply_schema(self, settings: Settings | None = None) -> int:
        """Apply cypher/schema.cypher (idempotent); returns the statement count."""
        settings = settings or self.settings
        statements = queries.get("schema").statements()
        with self.session() as session:
            for statement in statements:
                # schema commands cannot take parameters; the only variable part
                # (the vector dimension) is an int from settings, not from data.
                session.run(statement.replace("$dimension", str(int(settings.embedding_dim)))).consume()
        return len(statements)

    # --- analysts --------------------------------------------------------
    def query_read_only(self, text: str, params: dict | None = None) -> tuple[list[str], list[dict]]:
        """Run an analyst's statement under the console's allow-list (see console.py); rows as dicts."""
        result = self.console(text, params)
        return result.keys, result.rows

    def console(self, text: str, params: dict | None = None, *, timeout=None) -> "ConsoleResult":
        """An analyst's statement, checked against the console policy, then run read-only.

        The policy judges the plan the server gives for `EXPLAIN <statement>`;
        an allowed statement runs in a read transaction, which the server
        itself refuses to let write. `EXPLAIN ...` returns the plan without
        running; `PROFILE ...` runs and returns the rows and the profiled plan.
        timeout: a duration ("30s", seconds, 0 for none); default the console_timeout setting.
        """
        from neo4j import unit_of_work
        from neo4j.exceptions import ClientError

        from kgtool.graph import console

        statement = console.Statement.parse(text)
        seconds = console.parse_timeout(self.settings.console_timeout if timeout is None else timeout)
        params = params or {}
        with self.session(read_only=True) as session:
            summary = _checked_plan(session, statement, params, seconds)
            if statement.mode == "explain":
                return ConsoleResult([], [], summary.plan, profiled=False)
            prefix = "PROFILE " if statement.mode == "profile" else ""

            def work(tx):
                result = tx.run(prefix + statement.body, params)
                keys = list(result.keys())
                rows = [r.data() for r in result]
                return keys, rows, result.consume()

            try:
                keys, rows, done = session.execute_read(unit_of_work(timeout=seconds)(work))
            except ClientError as exc:
                raise _console_failure(exc, seconds) from exc
            plan = done.profile if statement.mode == "profile" else None
            return ConsoleResult(keys, rows, plan, profiled=plan is not None)


    def console_stream(self, text: str, params: dict | None = None, *, timeout=None, limit: int | None = 1000,
                       on_keys: Callable[[list[str]], None], on_row: Callable[[dict], None]) -> "ConsoleResult":
        """An analyst's statement, checked as `console` checks it, its rows handed to `on_row` as they arrive
        (at most `limit`; None or 0: all). The rows past the limit are counted, not converted
        (`ConsoleResult.more`). The time limit covers the whole of it, the caller's rendering included:
        the server ends the transaction when it runs past it, and so does the client."""
        from neo4j.exceptions import ClientError

        from kgtool.graph import console

        seconds = console.parse_timeout(self.settings.console_timeout if timeout is None else timeout)
        deadline = time.monotonic() + seconds if seconds else None
        statement = console.Statement.parse(text)
        if statement.mode == "explain":
            return self.console(text, params, timeout=timeout)
        params = params or {}
        with self.session(read_only=True) as session:
            _checked_plan(session, statement, params, seconds)
            prefix = "PROFILE " if statement.mode == "profile" else ""
            shown = more = 0
            counting_stopped = False
            try:
                with session.begin_transaction(timeout=seconds) as tx:  # no retry: rows may be printed already
                    result = tx.run(prefix + statement.body, params)
                    keys = list(result.keys())
                    on_keys(keys)
                    for record in result:
                        late = deadline is not None and time.monotonic() > deadline
                        if limit and shown >= limit:
                            if late:
                                counting_stopped = True
                                break
                            more += 1
                            continue
                        if late:
                            raise console.timeout_error(seconds)
                        on_row(record.data())
                        shown += 1
                    done = result.consume() if not counting_stopped else None
                    tx.rollback()
            except ClientError as exc:
                raise _console_failure(exc, seconds) from exc
        plan = done.profile if done is not None and statement.mode == "profile" else None
        return ConsoleResult(keys, [], plan, profiled=plan is not None, shown=shown, more=more,
                             more_is_partial=counting_stopped)



def _checked_plan(session, statement, params: dict, seconds):
    """The server's plan of an analyst's statement (EXPLAIN: nothing runs), checked against the console's
    allow-list (kgtool.graph.console.check); a rejected or timed-out statement raises the console's errors."""
    from neo4j import Query
    from neo4j.exceptions import ClientError

    from kgtool.graph import console

    try:
        summary = session.run(Query("EXPLAIN " + statement.body, timeout=seconds), params).consume()
    except ClientError as exc:
        if console.timed_out(exc):
            raise console.timeout_error(seconds) from exc
        raise DatabaseError(f"the server rejected the query: "
                            f"{_without_prefix(exc.message or str(exc), 'EXPLAIN ')}") from exc
    console.check(summary.query_type, summary.plan)
    return summary


def _console_failure(exc, seconds) -> Exception:
    """The error an analyst's statement that failed while running becomes: its time limit, a write the
    server refused in a read-only transaction, or the server's own message."""
    from kgtool.graph import console

    if console.timed_out(exc):
        return console.timeout_error(seconds)
    if "AccessMode" in (exc.code or "") or "Forbidden" in (exc.code or ""):
        return ReadOnlyViolation(f"refused by the server: {exc.message}")
    return DatabaseError(f"the query failed: {exc.message}")

def _without_prefix(message: str, prefix: str) -> str:
    """A server message about `prefix + statement` as if about the statement the user typed.

    The console checks a statement by explaining it, so a syntax error quotes the
    statement with the prefix, and its column, offset and caret count the prefix too.
    """
    n = len(prefix)

    def position(m: re.Match) -> str:
        line, column, offset = int(m[1]), int(m[2]), int(m[3])
        return f"(line {line}, column {column - n if line == 1 else column} (offset: {max(offset - n, 0)}))"

    message = re.sub(r"\(line (\d+), column (\d+) \(offset: (\d+)\)\)", position, message)
    lines = message.split("\n")
    for i, line in enumerate(lines):
        if line.startswith('"' + prefix):
            lines[i] = '"' + line[1 + n:]
            if i + 1 < len(lines) and lines[i + 1].strip() == "^":
                lines[i + 1] = lines[i + 1][n:]
    return "\n".join(lines)


@dataclass
class ConsoleResult:
    """What the console shows: the rows, and the plan for EXPLAIN and PROFILE."""

    keys: list[str]
    rows: list[dict]
    plan: dict | None = None
    profiled: bool = False
    # console_stream: the rows handed on, those past the limit (counted only), and whether counting
    # them stopped at the time limit (then `more` is a lower bound)
    shown: int = 0
    more: int = 0
    more_is_partial: bool = False


def _rows(result) -> list[dict]:
    """A named statement's rows as dicts.

    Named statements return plain values (no nodes or relationships), so zipping
    keys with each record is enough; Record.data() would be ~5x slower, which
    shows on the planner's reads of a few thousand rows.
    """
    keys = result.keys()
    return [dict(zip(keys, record)) for record in result]
