"""Whether a local process still runs: shared by the servers kgtool starts (Neo4j, llama-server)."""
from __future__ import annotations

import os
from pathlib import Path


def process_alive(pid: int) -> bool:
    """True while `pid` runs (a process of another user counts as running; a zombie does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie child still answers kill(0); check its state
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        return state != "Z"
    except (FileNotFoundError, IndexError):
        return True
