"""What the local server needs of the host: private directories, processes, ports and the Java version."""
from __future__ import annotations

import os
import re
import socket
import subprocess
from pathlib import Path

# the server writes its store, logs and auth.ini (the password hash) readable by its owner only
_PRIVATE_UMASK = 0o077


def private_home(home) -> Path:
    """KGTOOL_HOME, created (or tightened to) mode 0700: it holds the password, the store and caches."""
    return _private_dir(Path(home))


def _private_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    st = path.stat()
    if st.st_mode & 0o077 and st.st_uid == os.getuid():  # someone else's directory is theirs to set
        path.chmod(0o700)
    return path


def _restrict_tree(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        try:
            mode = path.lstat().st_mode
            if mode & 0o077 and not path.is_symlink():
                path.chmod(mode & ~0o077 & 0o7777)
        except FileNotFoundError:  # a log rotated away while walking
            continue


def _java_major(java: Path) -> int | None:
    try:
        out = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2)) if major == 1 and match.group(2) else major




def _port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _dir_size(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def free_port() -> int:
    """A currently free TCP port on 127.0.0.1 (for tests and side-by-side servers)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
