"""Read multi-hop QA benchmarks into one shape: `QAItem`.

Formats (`read_qa(path, format)`):

- ``jsonl``: kgtool's QA format, one JSON object per line::

      {"id": "q1", "question": "Who performed Hey Jude?", "answers": ["Madonna"], "hops": 1}

  ``question`` (non-empty string) and a gold answer are required: ``answers``
  (a list of strings, or one string) and/or ``answer`` (a string), with
  optional ``aliases`` (list of strings). Optional: ``id`` (string or number;
  default ``L<line>``), ``hops`` (positive integer) and ``hop_answers`` (the
  gold entity of every hop, each a string or a list of a name and its aliases;
  it gives Hop-Acc and, without ``hops``, the hop count), ``answerable``
  (true by default; ``false`` marks a question the graph cannot answer: its
  ``answers`` may be empty or left out, and any given are kept only for display).
  Other fields are ignored, so ``ingest/sample/questions.jsonl`` reads as is.
- ``hotpotqa``: the HotpotQA JSON list (``_id``, ``question``, ``answer``); every
  question has 2 hops.
- ``musique``: MuSiQue (``id``, ``question``, ``answer``, ``answer_aliases``,
  ``question_decomposition``); hops = the decomposition's length, and its
  answers are the gold hop entities. Records with ``"answerable": false``
  (MuSiQue-Full's unanswerable twins) are left out and counted in the notes.
- ``2wiki``: 2WikiMultihopQA (``_id``, ``question``, ``answer``); hops = the
  number of ``evidences`` triples when present, and when those triples form a
  chain (each object is the next subject) their objects are the gold hops.
- ``pathquestion``: PathQuestion / PathQuestion-Large text, one question a
  line: ``question<TAB>answers[<TAB>path]``. Answers are ``a/b/c`` or the
  IRN release's ``answer(alias1/alias2)``; the optional path
  ``e0#r1#e1#r2#e2[#<end>...]`` gives the hop count and gold hops. Names
  joined with underscores (``the_wild_bunch``) also match with spaces.

The JSON formats accept a JSON list (the published files) or JSON lines, and
every message names the file and line of the record. ``answer_aliases`` is
read in every JSON format.

Bad records are not skipped: an evaluation over a silently shortened file would
report figures that cannot be compared with anyone's. Every bad record is
listed (``file:line: problem``) in one InputError, so one fix round suffices.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from kgtool.core.formats import QA, detect_format
from kgtool.errors import InputError

FORMATS = QA.formats
_MAX_LISTED = 20


@dataclass(frozen=True)
class QAItem:
    """One evaluation question and what counts as its right answer."""

    id: str
    question: str
    answers: tuple[str, ...]  # gold answers, then aliases; a prediction matching any is right
    hops: int | None = None
    # the gold entity of each hop (a name and its aliases), when the data has them: gives Hop-Acc
    hop_answers: tuple[tuple[str, ...], ...] | None = None
    source: str = ""  # file:line
    # False: the right outcome is `no_answer` (scored by the abstention measures, kgtool.eval.abstention)
    answerable: bool = True


@dataclass
class QAData:
    """What a reader got out of one file."""

    path: str
    format: str
    items: list[QAItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # records left out on purpose, and why


class _Bad(Exception):
    """A record's problem; the reader adds file:line."""


def guess_format(path: str | Path) -> str:
    return detect_format(path, None, QA)


def read_qa(path: str | Path, format: str | None = None, *, limit: int | None = None) -> QAData:
    """Read a QA file; `limit` keeps the first N questions (after validating the whole file)."""
    path = Path(path)
    fmt = detect_format(path, format, QA)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    data = QAData(str(path), fmt)
    problems: list[str] = []
    seen: dict[str, str] = {}
    skipped = 0
    for where, record in _records(path, fmt):
        try:
            item = _READERS[fmt](record, where)
        except _Bad as bad:
            problems.append(f"{where}: {bad}")
            continue
        if item is None:
            skipped += 1
            continue
        if item.id in seen:
            problems.append(f"{where}: duplicate id {item.id!r} (first at {seen[item.id]})")
            continue
        seen[item.id] = where
        data.items.append(item)
    if problems:
        listed = problems[:_MAX_LISTED]
        more = f"\n... and {len(problems) - _MAX_LISTED} more" if len(problems) > _MAX_LISTED else ""
        raise InputError(f"{path}: {len(problems)} bad record(s), nothing evaluated; fix them and rerun:\n"
                         + "\n".join(listed) + more)
    if skipped:
        data.notes.append(f"{skipped} unanswerable record(s) left out")
    if not data.items:
        raise InputError(f"{path}: no questions found (is --format {fmt} right?)")
    if limit is not None:
        data.items = data.items[:max(0, limit)]
    return data


# --- records with their line -----------------------------------------------------------------
def _records(path: Path, fmt: str) -> Iterator[tuple[str, Any]]:
    text = path.read_text(encoding="utf-8-sig")
    if fmt == "pathquestion":
        for lineno, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                yield f"{path}:{lineno}", line
        return
    if fmt != "jsonl" and text.lstrip().startswith("["):
        yield from _json_list(path, text)
        return
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield f"{path}:{lineno}", json.loads(line)
        except json.JSONDecodeError as exc:
            yield f"{path}:{lineno}", _NotJson(exc.msg)


@dataclass(frozen=True)
class _NotJson:
    message: str


def _json_list(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    """The elements of a top-level JSON list, each with the line it starts on."""
    decoder = json.JSONDecoder()
    pos, line, counted = text.index("[") + 1, 1, 0

    def line_at(i: int) -> int:
        nonlocal line, counted
        line += text.count("\n", counted, i)
        counted = i
        return line

    def skip(i: int) -> int:
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        return i

    pos = skip(pos)
    if pos < len(text) and text[pos] == "]":
        return
    while True:
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno})") from None
        yield f"{path}:{line_at(pos)}", value
        pos = skip(end)
        if pos < len(text) and text[pos] == ",":
            pos = skip(pos + 1)
            continue
        if pos < len(text) and text[pos] == "]":
            return
        raise InputError(f"{path}:{line_at(min(pos, len(text)))}: not valid JSON (expected ',' or ']' "
                         "between list elements)")


# --- field checks ------------------------------------------------------------------------------
def _object(record: Any) -> dict:
    if isinstance(record, _NotJson):
        raise _Bad(f"not valid JSON ({record.message})")
    if not isinstance(record, dict):
        raise _Bad(f"expected a JSON object, got {type(record).__name__}")
    return record


def _text(record: dict, key: str, *, required: bool = True) -> str | None:
    value = record.get(key)
    if value is None and not required:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)  # numeric answers ("35") and ids are common
    if not isinstance(value, str) or not value.strip():
        if value is None:
            raise _Bad(f'missing "{key}"')
        raise _Bad(f'"{key}" must be a non-empty string, got {value!r:.60}')
    return value.strip()


def _texts(record: dict, key: str) -> list[str]:
    value = record.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool)
                                              for v in value):
        raise _Bad(f'"{key}" must be a list of strings, got {value!r:.60}')
    return [str(v).strip() for v in value if str(v).strip()]


def _id(record: dict, keys: tuple[str, ...], where: str) -> str:
    for key in keys:
        if record.get(key) is not None:
            return _text(record, key)
    return "L" + where.rsplit(":", 1)[1]


def _positive_int(record: dict, key: str) -> int | None:
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _Bad(f'"{key}" must be a positive integer, got {value!r:.60}')
    return value


def _unique(values) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if v))


# --- one reader per format ------------------------------------------------------------------------
def _from_jsonl(record: Any, where: str) -> QAItem:
    record = _object(record)
    question = _text(record, "question")
    answerable = record.get("answerable", True)
    if not isinstance(answerable, bool):
        raise _Bad(f'"answerable" must be true or false, got {answerable!r}')
    answers = _texts(record, "answers") + ([_text(record, "answer")] if record.get("answer") is not None else [])
    if not answers and answerable:
        raise _Bad('no gold answer: give "answers" (a list of strings) or "answer", '
                   'or mark the question "answerable": false')
    hop_answers = None
    if record.get("hop_answers") is not None:
        raw = record["hop_answers"]
        if not isinstance(raw, list) or not raw:
            raise _Bad('"hop_answers" must be a non-empty list (one entry per hop)')
        hop_answers = tuple(_unique(_texts({"hop": h}, "hop")) for h in raw)
        if not all(hop_answers):
            raise _Bad('every "hop_answers" entry must be a name or a list of names')
    hops = _positive_int(record, "hops")
    if hops is not None and hop_answers is not None and hops != len(hop_answers):
        raise _Bad(f'"hops" is {hops} but "hop_answers" has {len(hop_answers)} entries')
    return QAItem(_id(record, ("id",), where), question, _unique(answers + _texts(record, "aliases")),
                  hops if hops is not None else (len(hop_answers) if hop_answers else None), hop_answers, where,
                  answerable=answerable)


def _from_hotpotqa(record: Any, where: str) -> QAItem:
    record = _object(record)
    answers = [_text(record, "answer")] + _texts(record, "answer_aliases")
    return QAItem(_id(record, ("_id", "id"), where), _text(record, "question"), _unique(answers), 2, None, where)


def _from_musique(record: Any, where: str) -> QAItem | None:
    record = _object(record)
    if record.get("answerable") is False:
        return None
    answers = [_text(record, "answer")] + _texts(record, "answer_aliases")
    steps = record.get("question_decomposition")
    hops = hop_answers = None
    if steps is not None:
        if not isinstance(steps, list) or not steps or not all(isinstance(s, dict) for s in steps):
            raise _Bad('"question_decomposition" must be a non-empty list of objects')
        hops = len(steps)
        golds = [s.get("answer") for s in steps]
        if all(isinstance(g, str) and g.strip() for g in golds):
            hop_answers = tuple((g.strip(),) for g in golds)
    return QAItem(_id(record, ("id", "_id"), where), _text(record, "question"), _unique(answers), hops,
                  hop_answers, where)


def _from_2wiki(record: Any, where: str) -> QAItem:
    record = _object(record)
    answers = [_text(record, "answer")] + _texts(record, "answer_aliases")
    evidences = record.get("evidences")
    hops = hop_answers = None
    if evidences is not None:
        if not isinstance(evidences, list) or not all(isinstance(t, list) and len(t) == 3 for t in evidences):
            raise _Bad('"evidences" must be a list of [subject, relation, object] triples')
        hops = len(evidences) or None
        # a chain (each object is the next subject) names the gold entity of every hop;
        # comparison questions' evidences are parallel, not a chain
        chained = all(str(a[2]) == str(b[0]) for a, b in zip(evidences, evidences[1:]))
        if evidences and chained:
            hop_answers = tuple((str(t[2]),) for t in evidences)
    return QAItem(_id(record, ("_id", "id"), where), _text(record, "question"), _unique(answers), hops,
                  hop_answers, where)


def _spaced(name: str) -> tuple[str, ...]:
    """A PathQuestion name, and the same with its underscores as spaces."""
    name = name.strip()
    return _unique([name, name.replace("_", " ").strip()])


def _from_pathquestion(line: str, where: str) -> QAItem:
    fields = line.rstrip("\r\n").split("\t")
    if len(fields) < 2:
        raise _Bad("expected 'question<TAB>answers[<TAB>path]' (no tab found)")
    question, raw_answers = fields[0].strip(), fields[1].strip()
    if not question:
        raise _Bad("empty question")
    names: list[str] = []
    if raw_answers.endswith(")") and "(" in raw_answers:
        head, _, rest = raw_answers.partition("(")
        names = [head] + rest[:-1].split("/")
    else:
        names = raw_answers.split("/")
    answers = _unique(a for n in names if n.strip() for a in _spaced(n))
    if not answers:
        raise _Bad("empty answer")
    hops = hop_answers = None
    if len(fields) > 2 and fields[2].strip():
        parts = [p for p in fields[2].strip().split("#<end>")[0].split("#") if p.strip()]
        # e0#r1#e1#...#rn#en: entities at even positions; anything else is not a path, so it is ignored
        if len(parts) >= 3 and len(parts) % 2 == 1:
            hops = len(parts) // 2
            hop_answers = tuple(_spaced(parts[i]) for i in range(2, len(parts), 2))
    return QAItem("L" + where.rsplit(":", 1)[1], question, answers, hops, hop_answers, where)


_READERS: dict[str, Callable[[Any, str], QAItem | None]] = {
    "jsonl": _from_jsonl,
    "hotpotqa": _from_hotpotqa,
    "musique": _from_musique,
    "2wiki": _from_2wiki,
    "pathquestion": _from_pathquestion,
}
