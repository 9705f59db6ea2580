"""Neo4j's offline importer (`neo4j-admin database import full`) run on the local server's store.

The importer writes the store files directly, which only works while the
server is down, and Community has a single user database (`neo4j`), so an
import replaces it: the server is stopped, the importer runs on the same jars
the server runs on (`java -cp lib/* org.neo4j.cli.AdminTool ...`), and the
server is started again whatever happened, so a failed import never leaves
the user without a database. The importer's report and output are kept under
the server's logs directory and named in the error when it fails.
"""
from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from kgtool.config import Settings
from kgtool.errors import ConfigError, ServerError

# the store and logs the importer writes are as private as the server's own
_PRIVATE_UMASK = 0o077
DATABASE = "neo4j"  # Community's one user database


@dataclass
class ImportFiles:
    """What to import: (label or type, CSV path with its header line) pairs and the CSV dialect."""

    nodes: list[tuple[str, Path]] = field(default_factory=list)
    relationships: list[tuple[str, Path]] = field(default_factory=list)
    array_delimiter: str = "\x1e"
    multiline: bool = False


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


def _char_option(char: str) -> str:
    # control characters cannot travel on a command line as themselves
    return f"U+{ord(char):04X}"


def import_full(settings: Settings, files: ImportFiles, *, work_dir: Path) -> ImportOutcome:
    """Stop the local server, import `files` over its `neo4j` database, start it again.

    The server is restarted also when the import fails; the ServerError then
    names the importer's report and output files.
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
    cmd += [f"--nodes={label}={path}" for label, path in files.nodes]
    cmd += [f"--relationships={rtype}={path}" for rtype, path in files.relationships]

    t0 = time.perf_counter()
    server.stop()
    t1 = time.perf_counter()
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
