"""`kgtool db doctor --recover`: start a store whose transaction log is damaged, after a backup copy.

Neo4j refuses to start a store whose transaction log was cut short ("Error reading transaction logs,
recovery not possible"; a full disk does it). Its documented way out is one start with
internal.dbms.tx_log.fail_on_corrupted_log_files=false (and db.recovery.fail_on_missing_files=false):
recovery replays what it can read and truncates the damaged end of the log, so the transactions in that
end are lost. Before that start the whole data directory is copied aside (the copy is the undo: stop the
server and put it back); afterwards the server is restarted with its usual settings.
"""
from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from kgtool.core.files import check_free_space, private_dir
from kgtool.graph.host import _dir_size
from kgtool.graph.server import LocalServer
from kgtool.graph.server_health import RECOVERY_SETTINGS

WARNING = ("Recovery keeps what Neo4j can read of the transaction log and DROPS its damaged end: the "
           "transactions written there (the last writes before the disk filled or the server died) are lost. "
           "The data directory is copied aside first; to undo, stop the server and put the copy back.")


@dataclass
class Recovered:
    backup: Path
    backup_bytes: int
    seconds: float


def backup_path(server: LocalServer) -> Path:
    return server.home / f"data.backup-{time.strftime('%Y%m%d-%H%M%S')}"


def recover(server: LocalServer, *, timeout: float = 300.0) -> Recovered:
    """Stop the server, copy its data directory aside, start once with the recovery settings, restart as usual."""
    t0 = time.monotonic()
    data = server.home / "data"
    if not data.is_dir():
        from kgtool.errors import ServerError

        raise ServerError(f"no store at {data}: nothing to recover")
    server.stop()
    size = _dir_size(data)
    backup = backup_path(server)
    check_free_space(server.home, size, f"the backup copy of {data}")
    private_dir(backup.parent)
    shutil.copytree(data, backup, symlinks=True)
    backup.chmod(0o700)
    server.once_settings = dict(RECOVERY_SETTINGS)
    try:
        server.start(timeout=timeout)
    finally:
        server.once_settings = {}
        server.stop()
    server.start(timeout=timeout)  # the usual settings again: the recovery setting is for one start only
    return Recovered(backup, size, time.monotonic() - t0)
