"""Files kgtool writes for itself: private (0600 in 0700 directories), whole or not at all, never filling a disk.

A cache file (a built model, a resolved runtime) is written to `<name>.<pid>.part` in its own directory
and renamed over the final name, so a reader sees the whole file or none; a write that fails (a full
disk) removes its part file and says which path needed how much space. `*.part` files a killed process
left behind are removed the next time their directory is written to. Before a large write the free
space is checked against what the write needs, so a full disk is reported before it is half-written.
"""
from __future__ import annotations

import errno
import os
import re
import shutil
from pathlib import Path
from typing import Callable

from kgtool.errors import KgToolError

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
# what is kept free beyond a write's own size: a disk filled to its last byte breaks everything else on it
# (the database's transaction log first)
HEADROOM_BYTES = 64 * 1024 * 1024

_PART = re.compile(r"\.(\d+)\.part$")


class DiskSpaceError(KgToolError):
    """Not enough free space for a write; names the path and the space it needs."""


def mb(n: int) -> str:
    return f"{n / 1e6:.0f} MB" if n >= 1e6 else f"{n / 1e3:.0f} KB"


def free_bytes(path: Path) -> int:
    """Free bytes (for this user) on the filesystem that holds `path` (or its nearest existing parent)."""
    path = Path(path)
    while not path.exists() and path != path.parent:
        path = path.parent
    return shutil.disk_usage(path).free


def check_free_space(path: Path, needed: int, what: str, *, headroom: int = HEADROOM_BYTES) -> None:
    """Raise DiskSpaceError unless `path`'s filesystem has `needed` bytes free beyond `headroom`."""
    free = free_bytes(path)
    if free < needed + headroom:
        raise DiskSpaceError(
            f"not enough free space for {what} at {path}: it needs about {mb(needed + headroom)} "
            f"({mb(needed)} and {mb(headroom)} kept free) and {mb(free)} is free; free some space on that "
            "filesystem (or point KGTOOL_HOME / KGTOOL_CACHE_DIR at another) and run the command again")


def full_disk_error(path: Path, needed: int | None, exc: OSError, what: str) -> DiskSpaceError:
    need = f" (about {mb(needed)} more)" if needed else ""
    return DiskSpaceError(f"the disk is full: {what} could not be written to {path}{need}: {exc.strerror}; "
                          "nothing was left half-written. Free some space on that filesystem (or point "
                          "KGTOOL_HOME / KGTOOL_CACHE_DIR at another) and run the command again")


def private_dir(path: Path) -> Path:
    """`path` and its missing parents created 0700 (an existing one of this user's tightened to it)."""
    path = Path(path)
    missing = []
    probe = path
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    path.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
    for made in [*missing, path]:
        tighten(made, PRIVATE_DIR)
    return path


def tighten(path: Path, mode: int) -> None:
    """Take group and other permissions off `path` if it is this user's (someone else's is theirs to set)."""
    try:
        st = path.lstat()
        if st.st_mode & 0o077 and st.st_uid == os.getuid() and not path.is_symlink():
            path.chmod(mode)
    except FileNotFoundError:
        pass


def remove_leftover_parts(directory: Path) -> list[Path]:
    """Remove the `*.<pid>.part` files in `directory` whose process is gone; the removed paths."""
    from kgtool.core.process import process_alive

    removed = []
    if not Path(directory).is_dir():
        return removed
    for path in Path(directory).glob("*.part"):
        m = _PART.search(path.name)
        if m and int(m.group(1)) != os.getpid() and process_alive(int(m.group(1))):
            continue  # another process is writing it now
        path.unlink(missing_ok=True)
        removed.append(path)
    return removed


def write_atomic(path: Path, write: Callable[[object], None], *, size_hint: int, what: str,
                 headroom: int = HEADROOM_BYTES) -> Path:
    """Write `path` through `write(binary file)` into a part file beside it, then rename it over `path`.

    The directory is made private, leftover part files removed and the free space checked against
    `size_hint` first; a full disk while writing removes the part file and raises DiskSpaceError."""
    path = Path(path)
    private_dir(path.parent)
    remove_leftover_parts(path.parent)
    check_free_space(path.parent, size_hint, what, headroom=headroom)
    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    try:
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(partial, path)  # another process sees the whole file or none
    except OSError as exc:
        partial.unlink(missing_ok=True)
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise full_disk_error(path, size_hint, exc, what) from exc
        raise
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return path
