"""Small helpers the test modules share (fixtures live in conftest.py)."""
from __future__ import annotations

from pathlib import Path

SAMPLE = Path(__file__).resolve().parent.parent / "ingest" / "sample"


def env_for(settings) -> dict[str, str]:
    """The environment a CLI invocation needs to reach the test server of `settings`."""
    return {"KGTOOL_HOME": str(settings.home), "KGTOOL_NEO4J_PORT": str(settings.neo4j_port),
            "KGTOOL_RUNTIME_DIR": str(settings.runtime_dir)}
