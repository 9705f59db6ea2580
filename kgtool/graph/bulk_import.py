"""Neo4j's offline importer (`neo4j-admin database import full`) run on the local server's store.

The importer writes the store files directly, which only works while the
server is down, and Community has a single user database (`neo4j`), so an
import replaces it: the server is stopped, the importer runs on the same jars
the server runs on (`java -cp lib/* org.neo4j.cli.AdminTool ...`), and the
server is started again whatever happened, so a failed import never leaves
the user without a database. The importer's report and output are kept under
the server's logs directory and named in the error when it fails.

`CsvTable` writes the import files in the importer's CSV dialect batch by
batch, so a caller can stream rows out instead of holding them.
"""
from __future__ import annotations

import csv
import io
import shutil
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from operator import is_not, itemgetter, methodcaller
from pathlib import Path

from kgtool.config import Settings
from kgtool.errors import ConfigError, InputError, ServerError

# the store and logs the importer writes are as private as the server's own
_PRIVATE_UMASK = 0o077
DATABASE = "neo4j"  # Community's one user database


ARRAY_DELIMITER = "\x1e"  # between the items of a list cell: a character names and texts do not use


@dataclass
class ImportFiles:
    """What to import: (label or type, CSV file(s)) pairs and the CSV dialect.

    With several files for one label, the first line of the first is the header and
    the others are rows only (the importer reads them as one file).
    """

    nodes: list[tuple[str, Path | Sequence[Path]]] = field(default_factory=list)
    relationships: list[tuple[str, Path | Sequence[Path]]] = field(default_factory=list)
    array_delimiter: str = ARRAY_DELIMITER
    multiline: bool = False


def _paths(files: Path | Sequence[Path]) -> str:
    return str(files) if isinstance(files, Path) else ",".join(str(f) for f in files)


class _Null(int):
    """A cell the csv module leaves bare and empty, which the importer reads as no property.

    Under QUOTE_NONNUMERIC the csv module quotes every non-number, None included, and a
    quoted empty field is the empty string to the importer; a number is written unquoted
    through str(), so a number whose text is empty is a null.
    """

    __slots__ = ()

    def __str__(self) -> str:
        return ""

    __repr__ = __str__


NULL = _Null()


def check_list_items(items, delim: str = ARRAY_DELIMITER) -> None:
    """Refuse a list item holding the array delimiter, which would split it in two on import."""
    for item in items:
        if delim in item:
            raise InputError(f"the value {item!r} contains the character U+{ord(delim):04X}, which the bulk "
                             "importer uses between list items; remove it or load without --bulk")


def _kind(value) -> str | None:
    """The importer's type of a Python value (None for a null, which says nothing)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, (list, tuple)):
        return "string[]"
    return "string"


class CsvTable:
    """One import file written in batches of rows (lists of values in column order).

    `columns` are (name, kind) pairs: a kind such as "ID(Edit)", "START_ID(Entity)" or
    "string" is taken as given; a kind of None is learnt from the first value that is not
    null, so the header, which needs the types, is written last into a file of its own.
    Every value but a null is quoted (quotes doubled), a null is a bare empty field (no
    property), a list is joined with the array delimiter; a batch costs a few C calls over
    its whole text rather than a function call per cell (see _fast_text).
    """

    def __init__(self, directory: Path, name: str, columns: Sequence[tuple[str, str | None]],
                 array_delimiter: str = ARRAY_DELIMITER):
        self.header_path = directory / f"{name}.header.csv"
        self.body_path = directory / f"{name}.csv"
        self.names = [n for n, _ in columns]
        self.kinds: list[str | None] = [k for _, k in columns]
        self.delim = array_delimiter
        self.rows = 0
        self.multiline = False
        self._open = [i for i, k in enumerate(self.kinds) if k is None]
        self._converters: list[tuple[int, object]] = []
        for i, kind in enumerate(self.kinds):
            self._add_converter(i, kind)
        self._fh = self.body_path.open("w", encoding="utf-8", newline="")
        self._buf = io.StringIO()
        self._csv = csv.writer(self._buf, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")

    def _add_converter(self, index: int, kind: str | None) -> None:
        if kind == "string[]":
            self._converters.append((index, self._array))
        elif kind == "boolean":
            self._converters.append((index, _boolean))

    def _array(self, items) -> str:
        check_list_items(items, self.delim)
        return self.delim.join(items)

    def _learn(self, rows) -> None:
        still = []
        for i in self._open:
            # a column that stays null is scanned in every batch: C iterators only
            kind = _kind(next(filter(_not_null, map(itemgetter(i), rows)), None))
            if kind is None:
                still.append(i)
            else:
                self.kinds[i] = kind
                self._add_converter(i, kind)
        self._open = still

    def add(self, rows: Sequence[Sequence]) -> None:
        """Append rows; the values of a column must all be of one type (or null)."""
        if not rows:
            return
        if self._open:
            self._learn(rows)
        converters = self._converters
        if converters:
            rows = [list(row) for row in rows]
            for row in rows:
                for i, convert in converters:
                    if row[i] is not None:
                        row[i] = convert(row[i])
        text = self._fast_text(rows)
        if text is None:
            text = self._csv_text(rows)
        # a line break inside a quoted field makes the importer read lines whole, which is slower
        if not self.multiline and (text.count("\n") != len(rows) or "\r" in text):
            self.multiline = True
        self._fh.write(text)
        self.rows += len(rows)

    @staticmethod
    def _fast_text(rows) -> str | None:
        """The rows as CSV through a few whole-batch str.replace calls, or None when a value holds
        one of the three control characters used as markers (then the csv module writes them).

        Every value but a null is written quoted (the importer parses "3" in a long column
        as 3): cells are joined with U+0001 and rows with U+0004, a null is U+0002, and then
        quotes are doubled and the markers become `","`, `"<newline>"` and a bare empty field.
        The marker counts prove no value held a marker.
        """
        try:  # rows of strings only (every relationship file): one C call per row
            lines = list(map("\x01".join, rows))
            nulls = 0
        except TypeError:
            nulls = sum(map(_count_nulls, rows))
            lines = ["\x01".join([v if v.__class__ is str else ("\x02" if v is None else str(v)) for v in row])
                     for row in rows]
        text = "\x04".join(lines)
        if (text.count("\x01") != len(rows) * (len(rows[0]) - 1) or text.count("\x04") != len(rows) - 1
                or text.count("\x02") != nulls):
            return None
        text = '"' + text.replace('"', '""').replace("\x01", '","').replace("\x04", '"\n"') + '"\n'
        return text.replace('"\x02"', "") if nulls else text

    def _csv_text(self, rows) -> str:
        self._csv.writerows([[NULL if v is None else v for v in row] for row in rows])
        text = self._buf.getvalue()
        self._buf.seek(0)
        self._buf.truncate()
        return text

    def close(self) -> list[Path] | None:
        """Write the header; the (header, rows) files, or None (files removed) when no row was added:
        the importer refuses a file whose id spaces no node file declares."""
        self._fh.close()
        if not self.rows:
            self.body_path.unlink(missing_ok=True)
            return None
        header = [f"{name}:{kind or 'string'}" for name, kind in zip(self.names, self.kinds)]
        self.header_path.write_text(",".join(header) + "\n", encoding="utf-8")
        return [self.header_path, self.body_path]


_count_nulls = methodcaller("count", None)
_not_null = partial(is_not, None)


def _boolean(value) -> str:
    return "true" if value else "false"


@dataclass
class ImportOutcome:
    seconds_stop: float
    seconds_import: float
    seconds_start: float
    report_file: Path
    log_file: Path
    output: str


def local_server(settings: Settings):
    """The LocalServer whose store a bulk load replaces; refuses a remote NEO4J_URI."""
    from kgtool.graph.server import LocalServer

    if not settings.uses_local_server:
        raise ConfigError(
            f"--bulk writes the store files of kgtool's local Neo4j server, but NEO4J_URI is set "
            f"({settings.neo4j_uri}), whose files kgtool cannot reach. Load that server without --bulk "
            "(streaming ingest), or unset NEO4J_URI to bulk-load into the local server"
        )
    return LocalServer(settings)


class BackgroundStop:
    """Stops the local server on a thread of its own, so the caller can write files meanwhile."""

    def __init__(self, settings: Settings):
        self.server = local_server(settings)
        self.seconds = 0.0
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._stop, name="kgtool-bulk-stop", daemon=True)
        self._thread.start()

    def _stop(self) -> None:
        t0 = time.perf_counter()
        try:
            self.server.stop()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller in wait()
            self._error = exc
        self.seconds = time.perf_counter() - t0

    def wait(self) -> float:
        """The seconds the stop took, once it is done; its error, if it failed."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self.seconds

    def undo(self) -> None:
        """Start the server again (nothing was imported): for a caller that failed before the import."""
        self._thread.join()
        self.server.start()


def _char_option(char: str) -> str:
    # control characters cannot travel on a command line as themselves
    return f"U+{ord(char):04X}"


def import_full(settings: Settings, files: ImportFiles, *, work_dir: Path,
                stopped_in: float | None = None) -> ImportOutcome:
    """Stop the local server, import `files` over its `neo4j` database, start it again.

    `stopped_in` is given (the seconds the stop took) when the caller stopped the server
    already, e.g. while it wrote the last files. The server is restarted also when the
    import fails; the ServerError then names the importer's report and output files.
    """
    server = local_server(settings)
    logs = server.home / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    report = logs / f"bulk-import-{stamp}.report"
    log_file = logs / f"bulk-import-{stamp}.log"
    java = server.java()
    server.resolve_jars()
    cmd = [
        java, f"-Xmx{settings.neo4j_heap}", "-cp", str(server.lib_dir / "*"), "org.neo4j.cli.AdminTool",
        "database", "import", "full", DATABASE,  # the database name comes before the options since 5.19
        "--overwrite-destination=true", "--id-type=string", "--verbose",
        f"--array-delimiter={_char_option(files.array_delimiter)}",
        f"--multiline-fields={'true' if files.multiline else 'false'}",
        f"--report-file={report}",
        # a duplicate or a dangling id is a bug in kgtool's files, never data to drop quietly
        "--skip-duplicate-nodes=false", "--skip-bad-relationships=false", "--bad-tolerance=0",
    ]
    cmd += [f"--nodes={label}={_paths(paths)}" for label, paths in files.nodes]
    cmd += [f"--relationships={rtype}={_paths(paths)}" for rtype, paths in files.relationships]

    t0 = time.perf_counter()
    if stopped_in is None:
        server.stop()
        t1 = time.perf_counter()
    else:
        t0, t1 = t0 - stopped_in, t0
    # a failed import leaves the database's files unusable: keep the (empty) store to put back
    stores = [server.home / "data" / kind / DATABASE for kind in ("databases", "transactions")]
    backup = server.home / "data" / "bulk-backup"
    shutil.rmtree(backup, ignore_errors=True)
    for store in stores:
        if store.exists():
            shutil.copytree(store, backup / store.parent.name, symlinks=True)
    interrupted: BaseException | None = None
    try:
        proc = subprocess.run(cmd, env=server._env(), cwd=work_dir, capture_output=True, text=True, check=False,
                              umask=_PRIVATE_UMASK)
        output, status = proc.stdout + proc.stderr, proc.returncode
    except OSError as exc:
        output, status = f"could not run the importer: {exc}", None
    # Ctrl-C and the like: the store is put back and the server started, then it is raised again
    except BaseException as exc:  # noqa: BLE001
        output, status, interrupted = f"the import was interrupted: {exc!r}", None, exc
    log_file.write_text(output)
    log_file.chmod(0o600)
    failed = status != 0
    if failed:
        for store in stores:
            shutil.rmtree(store, ignore_errors=True)
            if (backup / store.parent.name).exists():
                shutil.move(backup / store.parent.name, store)
    shutil.rmtree(backup, ignore_errors=True)
    t2 = time.perf_counter()
    try:
        server.start()
    except ServerError as exc:
        what = "the import failed and " if failed else "the import finished but "
        raise ServerError(f"{what}Neo4j did not start again: {exc}. Importer output: {log_file}; "
                          f"report: {report}") from exc
    t3 = time.perf_counter()
    if interrupted is not None:
        raise interrupted
    if failed:
        lines = output.strip().splitlines()
        # with --verbose the cause is the last "Caused by:" of the stack trace
        causes = [line.strip() for line in lines if line.startswith("Caused by:")]
        reason = causes[-1] if causes else "\n".join(lines[-12:])
        raise ServerError(
            f"neo4j-admin database import failed (exit status {status}); the store was put back as it was and "
            f"the server was started again. Importer output: {log_file}; report of bad entries: {report}. "
            f"Cause: {reason}"
        )
    return ImportOutcome(t1 - t0, t2 - t1, t3 - t2, report, log_file, output)
