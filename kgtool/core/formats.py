"""Which format a file is in, and which command reads a file of another kind.

Every reader of files (edit corpora, fact files, document collections, QA and
MQuAKE benchmark files) asks `detect_format` with its FileKind: an explicit
format goes through the kind's aliases (a misspelt one gets a did-you-mean);
otherwise the extension decides, and a quick look at the file's start
(`readers_of`) catches a file of another kind, so `kgtool ingest edits kg.tsv`
says to run `kgtool ingest facts kg.tsv` instead of suggesting a rename.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from kgtool.core.suggest import did_you_mean
from kgtool.errors import ConfigError, InputError

_JSONL = {".jsonl": "jsonl", ".ndjson": "jsonl"}


class FormatError(InputError, ConfigError):
    """A file's format is unknown, cannot be told, or belongs to another command."""


@dataclass(frozen=True)
class FileKind:
    name: str
    label: str  # "edit": how messages name its formats ("unknown edit format 'csv'")
    what: str  # "an edit corpus": how messages name a file of this kind
    command: str  # the command that reads it
    formats: tuple[str, ...]
    extensions: dict[str, str]  # ".json" -> "mquake": the format an extension means
    aliases: dict[str, str] = field(default_factory=dict)  # other spellings of formats
    directory: str | None = None  # the format a directory is read as (None: no directories)
    format_option: bool = True  # its command takes --format

    def format_named(self, format: str) -> str:
        fmt = format.lower()
        fmt = self.aliases.get(fmt, fmt)
        if fmt not in self.formats:
            raise FormatError(f"unknown {self.label} format {format!r}{did_you_mean(format, self.formats)}; "
                             f"use one of: {', '.join(self.formats)}")
        return fmt


EDITS = FileKind("edits", "edit", "an edit corpus", "kgtool ingest edits", ("mquake", "jsonl"),
                 {**_JSONL, ".json": "mquake"}, {"json": "mquake", "ndjson": "jsonl"})
FACTS = FileKind("facts", "fact file", "a fact file", "kgtool ingest facts", ("tsv", "jsonl", "nt"),
                 {".tsv": "tsv", ".txt": "tsv", **_JSONL, ".nt": "nt"},
                 {"ndjson": "jsonl", "ntriples": "nt", "n-triples": "nt"})
DOCS = FileKind("docs", "document", "a document collection", "kgtool ingest docs",
                ("hotpotqa", "musique", "2wiki", "jsonl", "text"), {".txt": "text", **_JSONL},
                {"ndjson": "jsonl", "txt": "text"}, directory="text")
QA = FileKind("qa", "QA", "a QA file", "kgtool eval qa", ("jsonl", "hotpotqa", "musique", "2wiki", "pathquestion"),
              {**_JSONL, ".txt": "pathquestion"}, {"ndjson": "jsonl"})
MQUAKE = FileKind("mquake", "MQuAKE", "an MQuAKE file", "kgtool eval mquake", ("mquake",), {".json": "mquake"},
                  {"json": "mquake"}, format_option=False)
KINDS = (EDITS, FACTS, DOCS, QA, MQUAKE)


def detect_format(path: str | Path, format: str | None, kind: FileKind) -> str:
    """The format of `path` as a file of `kind`: `format` if given, else from the extension.

    A file whose start shows it is of another kind is refused with the command that reads it;
    an extension that names no format is refused with the extensions and formats to use.
    """
    path = Path(path)
    if format is not None:
        return kind.format_named(format)
    check_kind(path, kind)
    if path.is_dir() and kind.directory:
        return kind.directory
    fmt = kind.extensions.get(path.suffix.lower())
    if fmt is None:
        names = " or ".join(dict.fromkeys(kind.extensions))
        raise FormatError(f"{path}: cannot tell the format of {kind.what} from the extension {path.suffix!r}; "
                         f"name it {names}, or pass --format ({', '.join(kind.formats)})")
    return fmt


def check_kind(path: str | Path, kind: FileKind) -> None:
    """Refuse a file that is plainly of another kind, naming the command that reads it."""
    path = Path(path)
    readers = readers_of(path)
    if not readers or kind.name in readers:
        return
    group = kind.command.rsplit(" ", 1)[0]  # kgtool ingest / kgtool eval: a sibling command first
    others = sorted((k for k in KINDS if k.name in readers), key=lambda k: not k.command.startswith(group))
    other = others[0]
    escape = f" (or pass --format to {kind.command} if it really is {kind.what})" if kind.format_option else ""
    raise FormatError(f"{path} looks like {other.what}, not {kind.what}: read it with `{other.command} {path}`"
                      f"{escape}")


def readers_of(path: Path) -> list[str]:
    """The kinds that can read `path`, judged from its start ([] when it cannot be told)."""
    if not path.is_file():
        return []
    try:
        with path.open("rb") as handle:
            head = handle.read(65536).decode("utf-8", errors="replace").lstrip("\ufeff")
    except OSError:
        return []
    suffix = path.suffix.lower()
    if suffix in (".tsv", ".nt"):
        return ["facts"]
    if suffix == ".json":
        if '"requested_rewrite"' in head:
            return ["edits", "mquake"]
        return []
    if suffix in _JSONL:
        line = next((ln for ln in head.splitlines() if ln.strip()), "")
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            return []
        return _jsonl_readers(record) if isinstance(record, dict) else []
    return []


def _jsonl_readers(record: dict) -> list[str]:
    keys = set(record)
    if {"head", "tail"} <= keys:
        return ["facts"]
    if {"subject", "object"} <= keys:
        return ["edits"]
    if "question" in keys and ({"answers", "answer"} & keys):
        return ["qa"]
    if "text" in keys:
        return ["docs"]
    return []
