"""The one loader of named Cypher statements.

Every statement lives in `kgtool/cypher/` (also reachable as `cypher/` at the
repository root), one per file, with a header of `//` comments listing its
`$parameters` and result columns. A statement's name is its path below that
folder without the `.cypher` suffix: `hop/candidates`, `analyst/backtracks`.
Python code asks for statements by name and never holds query text itself.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kgtool.errors import QueryNotFoundError

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_HEADER_PARAMS = re.compile(r"^//\s*params?:\s*(.*)$", re.IGNORECASE)
_HEADER_RETURNS = re.compile(r"^//\s*returns?:\s*(.*)$", re.IGNORECASE)


@dataclass(frozen=True)
class Query:
    name: str
    text: str
    doc: str
    params: tuple[str, ...]  # parameters the text uses
    declared_params: tuple[str, ...]  # parameters the header lists
    returns: str
    path: str

    def statements(self) -> list[str]:
        """Split a multi-statement file (only schema files are) at `;` line ends."""
        body = "\n".join(line for line in self.text.splitlines() if not line.lstrip().startswith("//"))
        return [part.strip() for part in re.split(r";\s*(?:\n|$)", body) if part.strip()]


def cypher_root() -> Path:
    # the statements ship inside the package (package data), next to this module
    return Path(__file__).resolve().parent.parent / "cypher"


def _parse(name: str, path: Path) -> Query:
    text = path.read_text(encoding="utf-8")
    doc_lines, declared, returns = [], [], ""
    section = "doc"  # a header line continues the section above it when it is indented
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("//"):
            if stripped:
                break
            continue
        body = stripped[2:]
        if m := _HEADER_PARAMS.match(stripped):
            section = "params"
            declared += _PARAM.findall(m.group(1))
        elif m := _HEADER_RETURNS.match(stripped):
            section = "returns"
            returns = m.group(1).strip()
        elif body.startswith("  ") and section == "params":
            declared += _PARAM.findall(body)
        elif body.startswith("  ") and section == "returns":
            returns += " " + body.strip()
        else:
            section = "doc"
            doc_lines.append(body.strip())
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    used = tuple(dict.fromkeys(_PARAM.findall(body)))
    return Query(name, text, " ".join(doc_lines).strip(), used, tuple(dict.fromkeys(declared)), returns, str(path))


@lru_cache(maxsize=None)
def get(name: str) -> Query:
    """The named statement, e.g. `get("hop/candidates")`."""
    path = cypher_root() / f"{name}.cypher"
    if not path.is_file():
        known = ", ".join(all_names()[:20])
        raise QueryNotFoundError(f"no Cypher statement named {name!r} (looked for {path}); known: {known} ...")
    return _parse(name, path)


def text(name: str) -> str:
    return get(name).text


def all_names() -> list[str]:
    root = cypher_root()
    return sorted(str(p.relative_to(root).with_suffix("")) for p in root.rglob("*.cypher"))


def load_file(path: str | Path) -> Query:
    """A statement from any file (analysts' `kgtool cypher -f FILE`)."""
    path = Path(path)
    return _parse(path.stem, path)
