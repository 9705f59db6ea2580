"""kgtool's JSONL edit format (described in kgtool.ingest.readers): read whole, or streamed in batches."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterator

from kgtool.ingest.records import BadRecord, BaseFact, EditRecord, ReadResult

from kgtool.ingest.edit_checks import (
    _ALIAS_FIELDS,
    _OPTIONAL_NAMES,
    _OPTIONAL_TEXT,
    _REQUIRED_TEXT,
    _aliases_problem,
    _edit_problem,
    _may_hold_surrogates,
    _type_name,
)


def read_jsonl(path: str | Path) -> ReadResult:
    """Read kgtool's JSONL edit format (see the module docstring)."""
    with JsonlEdits(path) as stream:
        return stream.read_all()


def iter_jsonl(path: str | Path, bad: list[BadRecord] | None = None) -> Iterator[tuple[int, EditRecord]]:
    """(line number, edit) of a JSONL edit file, one line at a time, with read_jsonl's checks:
    bad lines and repeated ids (reported on their later line) go to `bad`, or are dropped when None."""
    first_line_of: dict[str, int] = {}
    with Path(path).open("rb") as handle:
        for lineno, raw in enumerate(handle, start=1):
            where = f"{path}:{lineno}"
            edit = _parse_jsonl_line(raw, lineno, where)
            if edit is None:
                continue
            if isinstance(edit, str):
                if bad is not None:
                    bad.append(BadRecord(where, edit))
                continue
            first = first_line_of.setdefault(edit.id, lineno)
            if first != lineno:
                if bad is not None:
                    bad.append(BadRecord(where, f"duplicate id {edit.id!r} (first used on line {first})"))
                continue
            yield lineno, edit


def count_lines(path: str | Path) -> int:
    """Lines in the file, blank ones too (for a progress total before the file is read)."""
    lines, last = 0, b"\n"
    with Path(path).open("rb") as handle:
        while chunk := handle.read(1 << 20):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    return lines + (last != b"\n")


class JsonlEdits:
    """kgtool's JSONL edit format, read as far as asked: the streaming ingest writes the
    first batches while the rest of the file is still being read.

    `result` holds what has been read so far (edits in file order, bad lines as
    file:line: reason, duplicate ids reported on their later line), exactly what
    read_jsonl returns once the file is read to its end.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.result = ReadResult()
        self.done = False
        self._stream: Iterator[tuple[int, EditRecord]] | None = None
        self._lines_read = 0  # up to the last edit read
        self._lines: int | None = None

    def __enter__(self) -> "JsonlEdits":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    # what has been read so far, under ReadResult's names (EditRows reads these)
    @property
    def edits(self) -> list[EditRecord]:
        return self.result.edits

    @property
    def base_facts(self) -> list[BaseFact]:
        return self.result.base_facts

    @property
    def bad(self) -> list[BadRecord]:
        return self.result.bad

    def read_until(self, n_edits: int) -> ReadResult:
        """Read on until `n_edits` good edits are in (or the file ends)."""
        if self.done:
            return self.result
        if self._stream is None:
            self._stream = iter_jsonl(self.path, self.result.bad)
        edits = self.result.edits
        while len(edits) < n_edits:
            item = next(self._stream, None)
            if item is None:
                self.done = True
                self.close()
                break
            self._lines_read, edit = item
            edits.append(edit)
        return self.result

    def read_all(self) -> ReadResult:
        return self.read_until(sys.maxsize)

    def lines_left(self) -> int:
        """Lines not read yet (an upper bound of the edits still to come); the file's lines
        are counted on the first call."""
        if self.done:
            return 0
        if self._lines is None:
            self._lines = count_lines(self.path)
        return max(self._lines - self._lines_read, 0)


def _parse_jsonl_line(raw: bytes, lineno: int, where: str) -> EditRecord | str | None:
    """An EditRecord, a reason string for a bad line, or None for a blank line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not valid UTF-8 ({exc.reason} at byte {exc.start})"
    if lineno == 1:
        text = text.removeprefix("\ufeff")
    if not text.strip():
        return None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"malformed JSON: {exc.msg} (column {exc.colno})"
    if not isinstance(obj, dict):
        return f"expected a JSON object, got {_type_name(obj)}"
    return _edit_from_mapping(obj, where, surrogates=_may_hold_surrogates(text))


def _edit_from_mapping(obj: dict, where: str, *, surrogates: bool = True) -> EditRecord | str:
    raw_id = obj.get("id")
    if isinstance(raw_id, int) and not isinstance(raw_id, bool):
        raw_id = str(raw_id)
    case_id = obj.get("case_id")
    if isinstance(case_id, int) and not isinstance(case_id, bool):
        case_id = str(case_id)
    values: dict[str, Any] = {"id": raw_id, "case_id": case_id}
    for name in (*_REQUIRED_TEXT, *_OPTIONAL_NAMES, *_OPTIONAL_TEXT):
        values[name] = obj.get(name)
    for name in _ALIAS_FIELDS:
        aliases = obj.get(name, ())
        problem = _aliases_problem(name, aliases, surrogates=surrogates)
        if problem:
            return problem
        values[name] = tuple(aliases)
    edit = EditRecord(source=where, **values)
    return _edit_problem(edit, aliases=False, surrogates=surrogates) or edit


