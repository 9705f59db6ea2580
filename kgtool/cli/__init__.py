"""The `kgtool` command line: thin commands over the API (kgtool.api), one module per topic.

Each command module parses its arguments, calls the API and hands the result
to the presentation package (kgtool.cli.present), which is the only place
that draws tables, bars and styled text.
"""
from __future__ import annotations

import sys


class _DriverWithoutDataFrames:
    """Keeps the Neo4j driver from importing pandas and pyarrow in a CLI process.

    When they are installed the driver imports both while it loads (to accept
    dataframes as parameters and for Result.to_df); kgtool uses neither, and
    they were two thirds of the driver's import time (2.2 of 3.3 s on a busy
    2-core machine), paid by every `kgtool ask`. Only the driver's own optional
    look-up is refused: anything else imports them as usual.
    """

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("pandas", "pyarrow"):
            loading = sys.modules.get("neo4j._optional_deps")
            if loading is not None and getattr(getattr(loading, "__spec__", None), "_initializing", False):
                raise ModuleNotFoundError(f"{name} is not used by kgtool's driver calls", name=name)
        return None


if "neo4j" not in sys.modules:
    sys.meta_path.insert(0, _DriverWithoutDataFrames())

from kgtool.cli.app import main  # noqa: E402 - after the import hook above
from kgtool.cli.ask import ask, methods  # noqa: E402
from kgtool.cli.cypher import cypher  # noqa: E402
from kgtool.cli.db import db  # noqa: E402
from kgtool.cli.eval import eval_, verify_benchmark_cmd  # noqa: E402
from kgtool.cli.doctor import doctor  # noqa: E402
from kgtool.cli.ingest import delete, ingest  # noqa: E402
from kgtool.cli.llm import llm  # noqa: E402
from kgtool.cli.resolve import resolve_cmd  # noqa: E402
from kgtool.cli.trace import trace  # noqa: E402

# a topic's commands live in a module of their own (kgtool/cli/<topic>.py), registered here
for _command in (db, ingest, delete, ask, methods, trace, eval_, verify_benchmark_cmd, cypher, llm, resolve_cmd):
    main.add_command(_command)
db.add_command(doctor)

__all__ = ["main"]
