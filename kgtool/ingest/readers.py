"""Read edit corpora: MQuAKE JSON files and kgtool's JSONL edit format.

JSONL edit format
-----------------
One edit per line, a JSON object, UTF-8. An edit states that the fact
(subject, relation, old_object) is replaced by (subject, relation, object),
and `description` is the natural-language sentence(s) the graph is built from.

Required fields (non-empty strings):

- ``id``: stable identifier of the edit (a number is accepted and kept as text);
  re-ingesting the same id updates the same edit instead of adding a new one.
- ``subject``: the subject entity name, e.g. "Hey Jude".
- ``relation``: a human-readable relation label, e.g. "performer".
- ``object``: the new object entity name, e.g. "Madonna".
- ``description``: text stating the edit, e.g. "Hey Jude was performed by Madonna."

Optional fields:

- ``old_object``: the object being replaced.
- ``relation_id``, ``subject_id``, ``object_id``, ``old_object_id``: external
  ids (Wikidata P/Q ids); entities with a Q-id are merged across edits by it.
- ``subject_aliases``, ``object_aliases``, ``old_object_aliases``: lists of
  other names of those entities, used for linking questions to the graph.
- ``case_id``: groups edits that belong to one evaluation case.
- ``prompt``: a cloze template with ``{}`` for the subject; ``question``: a
  question whose answer is the new object.

Example line::

    {"id": "e1", "subject": "Hey Jude", "relation": "performer", "object": "Madonna",
     "old_object": "The Beatles", "description": "Hey Jude was performed by Madonna.",
     "object_aliases": ["Madonna Louise Ciccone"]}

Limits: names, relations, ids and aliases up to 1,000 characters; description,
prompt and question up to 10,000. Blank lines are ignored. A line that is not
valid JSON, lacks a required field, has a wrong type or exceeds a limit is
skipped and reported as ``file:line: reason``; the rest of the file still loads.
Text is kept verbatim (any Unicode, including strings that look like code).

MQuAKE (MQuAKE-CF, -CF-3k, -T, -2002, -hard) is read from the published JSON
list of cases: each `requested_rewrite` becomes one edit with id
``mquake:<case_id>:<index>``, the pre-edit chain `orig.triples` becomes base
facts, and `new_single_hops` becomes the gold hops of the case.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable, Iterator

from kgtool.core.formats import EDITS, detect_format
from kgtool.errors import InputError
from kgtool.ingest.records import (
    BadRecord,
    BaseFact,
    Case,
    EditRecord,
    GoldHop,
    ReadResult,
)

# Limits on input (characters). Names, relation phrases and ids are stored in indexed properties,
# and Neo4j refuses to index a value over ~8 KB ("Property value is too large to index"), which would
# fail a whole batch: longer ones are refused per record (edits, facts) or skipped per token with a
# warning naming the file and record (names and phrases a document extractor reads from text).
MAX_NAME_CHARS = 1_000  # an entity name or alias
MAX_RELATION_CHARS = 1_000  # a relation phrase
MAX_ID_CHARS = 1_000  # an entity, edit, document or case id
MAX_TEXT_CHARS = 10_000


def oversize(kind: str, value: str) -> str | None:
    """Why `value` (an entity name, relation phrase or id: `kind`) is too long to store, or None."""
    limit = {"name": MAX_NAME_CHARS, "relation": MAX_RELATION_CHARS, "id": MAX_ID_CHARS}[kind]
    if len(value) <= limit:
        return None
    return f"{kind} of {len(value):,} characters (limit {limit:,}) skipped: {value[:40]!r}..."


FORMATS = EDITS.formats

_REQUIRED_TEXT = ("subject", "relation", "object", "description")
_OPTIONAL_NAMES = ("old_object", "relation_id", "subject_id", "object_id", "old_object_id")
_OPTIONAL_TEXT = ("prompt", "question")
_ALIAS_FIELDS = ("subject_aliases", "object_aliases", "old_object_aliases")
_LONG_FIELDS = frozenset({"description", "prompt", "question", "evidence"})
# (field, required, length limit) of an edit's text fields, in the order problems are reported
_EDIT_TEXT_RULES = tuple(
    (name, required, MAX_TEXT_CHARS if name in _LONG_FIELDS else MAX_NAME_CHARS)
    for name, required in (("id", True), *((n, True) for n in _REQUIRED_TEXT),
                           *((n, False) for n in (*_OPTIONAL_NAMES, *_OPTIONAL_TEXT, "case_id")))
)


def read_edits(path: str | Path, format: str | None = None) -> ReadResult:
    """Read an edit file; the format comes from `format` or else the extension.

    Bad records never stop the read: they are returned in `ReadResult.bad`.
    A file that cannot be read at all raises InputError naming it.
    """
    path = Path(path)
    if edit_format(path, format) == "jsonl":
        return read_jsonl(path)
    return read_mquake(path)


def stream_edits(path: str | Path, format: str | None = None) -> JsonlEdits | None:
    """The edit file as a JsonlEdits to read as far as needed, or None for a format that is
    read whole (MQuAKE: one JSON list); the same errors as read_edits for a missing file
    or an unknown format."""
    path = Path(path)
    return JsonlEdits(path) if edit_format(path, format) == "jsonl" else None


def edit_format(path: Path, format: str | None) -> str:
    """The format of an existing edit file ("jsonl" or "mquake"), from `format` or else the
    extension; an InputError for an unknown format, a file of another kind or a missing file."""
    fmt = detect_format(path, format, EDITS)
    if not path.is_file():
        raise InputError(f"{path}: no such file; check the path of the edit corpus")
    return fmt


# --------------------------------------------------------------------------- validation


def _text_problem(name: str, value: Any, *, required: bool, surrogates: bool = True) -> str | None:
    """Why `value` is not acceptable for field `name`, or None.

    surrogates=False skips the UTF-8 check, for values parsed from text that cannot hold
    an unpaired surrogate (see _may_hold_surrogates)."""
    if value is None:
        return f"missing required field '{name}'" if required else None
    if not isinstance(value, str):
        return f"field '{name}' must be a string, got {_type_name(value)}"
    if required and not value.strip():
        return f"field '{name}' is empty"
    limit = MAX_TEXT_CHARS if name in _LONG_FIELDS else MAX_NAME_CHARS
    if len(value) > limit:
        return f"field '{name}' is {len(value):,} characters long (limit {limit:,})"
    if surrogates and not _encodable(value):
        return f"field '{name}' contains an unpaired surrogate and cannot be stored as UTF-8"
    return None


def _aliases_problem(name: str, value: Any, *, surrogates: bool = True) -> str | None:
    if not surrogates and value.__class__ in (list, tuple):  # the common case, checked first and quickly
        for alias in value:
            if alias.__class__ is not str or len(alias) > MAX_NAME_CHARS:
                break
        else:
            return None
    if not isinstance(value, (list, tuple)):
        return f"field '{name}' must be a list of strings, got {_type_name(value)}"
    for k, alias in enumerate(value):
        if not isinstance(alias, str):
            return f"field '{name}'[{k}] must be a string, got {_type_name(alias)}"
        if len(alias) > MAX_NAME_CHARS:
            return f"field '{name}'[{k}] is {len(alias):,} characters long (limit {MAX_NAME_CHARS:,})"
        if surrogates and not _encodable(alias):
            return f"field '{name}'[{k}] contains an unpaired surrogate and cannot be stored as UTF-8"
    return None


def validate_edit(edit: EditRecord) -> str | None:
    """Return what is wrong with an edit (first problem found), or None if it is fine."""
    return _edit_problem(edit)


def _edit_problem(edit: EditRecord, *, aliases: bool = True, surrogates: bool = True) -> str | None:
    """validate_edit, minus the alias check when the reader has done it already (aliases=False)
    and the UTF-8 check when the source text cannot hold unpaired surrogates."""
    for name, required, limit in _EDIT_TEXT_RULES:
        value = getattr(edit, name)
        # the common cases, settled without the detailed check: a missing optional field,
        # and a non-blank string within its limit whose UTF-8 need not be checked
        if value is None and not required:
            continue
        if not surrogates and value.__class__ is str and 0 < len(value) <= limit and not value.isspace():
            continue
        problem = _text_problem(name, value, required=required, surrogates=surrogates)
        if problem:
            return problem
    if aliases:
        for name in _ALIAS_FIELDS:
            problem = _aliases_problem(name, getattr(edit, name), surrogates=surrogates)
            if problem:
                return problem
    return None


# the field rules of this module, for the other readers of the package (kgtool/ingest/facts.py)
text_problem = _text_problem
aliases_problem = _aliases_problem


# A JSON escape of a UTF-16 surrogate (\uD800-\uDFFF): the only way a value parsed from
# valid UTF-8 can hold an unpaired one. Lines without it skip the per-field UTF-8 check
# (an encode of every field and alias).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _may_hold_surrogates(text: str) -> bool:
    return _SURROGATE_ESCAPE.search(text) is not None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def type_name(value: Any) -> str:
    """How a JSON value's type is named in error messages ("an object", "a number", ...)."""
    return _type_name(value)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
    }.get(type(value), type(value).__name__)


# --------------------------------------------------------------------------- JSONL


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


# --------------------------------------------------------------------------- MQuAKE


def read_mquake(path: str | Path) -> ReadResult:
    """Read a MQuAKE JSON file (a list of cases)."""
    path = Path(path)
    cases = _load_json_list(path)
    labels = relation_labels(cases)
    result = ReadResult()
    seen_case_ids: dict[str, int] = {}
    for index, case in enumerate(cases):
        where = f"{path}:case[{index}]"
        if not isinstance(case, dict):
            result.bad.append(BadRecord(where, f"expected a JSON object, got {_type_name(case)}"))
            continue
        case_id = _case_id(case, index)
        if case_id in seen_case_ids:
            result.bad.append(
                BadRecord(where, f"duplicate case_id {case_id!r} (first used by case[{seen_case_ids[case_id]}])")
            )
            continue
        seen_case_ids[case_id] = index
        _read_case(case, case_id, where, labels, result)
    return result


def _load_json_list(path: Path) -> list:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); is this a MQuAKE JSON file?"
        ) from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
            "a MQuAKE file is one JSON list of cases (for one edit per line use a .jsonl file)"
        ) from exc
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of MQuAKE cases, got {_type_name(data)}")
    return data


def _case_id(case: dict, index: int) -> str:
    raw = case.get("case_id")
    if isinstance(raw, (str, int)) and not isinstance(raw, bool) and str(raw).strip():
        return str(raw)
    # files without case ids still get ids that are stable for the same file
    return f"record{index}"


def _triple_pairs(orig: Any, ids_key: str, labels_key: str) -> Iterable[tuple[list, list]]:
    """Aligned (id triple, labelled triple) pairs, skipping malformed entries."""
    if not isinstance(orig, dict):
        return ()
    ids, labelled = orig.get(ids_key), orig.get(labels_key)
    if not isinstance(ids, list) or not isinstance(labelled, list) or len(ids) != len(labelled):
        return ()
    return [
        (ids_t, labels_t)
        for ids_t, labels_t in zip(ids, labelled)
        if _is_str_triple(ids_t) and _is_str_triple(labels_t)
    ]


def _is_str_triple(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 3 and all(isinstance(x, str) for x in value)


def relation_labels(cases: list) -> dict[str, str]:
    """Map relation id -> label, learned from the labelled triples of every case.

    Each case's `orig.triples` line up with `orig.triples_labeled` (and
    `new_triples` with `new_triples_labeled`), so the middle elements pair a
    property id with its label. When a file is inconsistent, the most frequent
    label wins (ties broken alphabetically, so the result is deterministic).
    """
    counts: dict[str, Counter] = defaultdict(Counter)
    for case in cases:
        if not isinstance(case, dict):
            continue
        orig = case.get("orig")
        for ids_key, labels_key in (("triples", "triples_labeled"), ("new_triples", "new_triples_labeled")):
            for id_triple, label_triple in _triple_pairs(orig, ids_key, labels_key):
                if label_triple[1].strip():
                    counts[id_triple[1]][label_triple[1]] += 1
    return {rid: min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0] for rid, c in counts.items()}


def _alias_map(case: dict) -> dict[str, tuple[str, ...]]:
    """Entity name -> aliases, from the answers of the case's single hops."""
    aliases: dict[str, list[str]] = defaultdict(list)

    def add(name: Any, more: Any) -> None:
        if not isinstance(name, str) or not isinstance(more, list):
            return
        bucket = aliases[name]
        for alias in more:
            if isinstance(alias, str) and alias.strip() and alias != name and alias not in bucket:
                bucket.append(alias)

    for key in ("single_hops", "new_single_hops"):
        hops = case.get(key)
        if isinstance(hops, list):
            for hop in hops:
                if isinstance(hop, dict):
                    add(hop.get("answer"), hop.get("answer_alias"))
    add(case.get("answer"), case.get("answer_alias"))
    add(case.get("new_answer"), case.get("new_answer_alias"))
    return {name: tuple(values) for name, values in aliases.items()}


def _name_to_qid(orig: Any) -> dict[str, str]:
    """Entity name -> Wikidata id, from the labelled chains of one case."""
    names: dict[str, str] = {}
    for ids_key, labels_key in (("triples", "triples_labeled"), ("new_triples", "new_triples_labeled")):
        for id_triple, label_triple in _triple_pairs(orig, ids_key, labels_key):
            names.setdefault(label_triple[0], id_triple[0])
            names.setdefault(label_triple[2], id_triple[2])
    return names


def _read_case(case: dict, case_id: str, where: str, labels: dict[str, str], result: ReadResult) -> None:
    rewrites = case.get("requested_rewrite")
    if not isinstance(rewrites, list) or not rewrites:
        result.bad.append(BadRecord(where, "field 'requested_rewrite' must be a non-empty list of edits"))
        return
    orig = case.get("orig")
    aliases = _alias_map(case)
    qids = _name_to_qid(orig)
    edit_triples = orig.get("edit_triples") if isinstance(orig, dict) else None
    edit_ids: list[str] = []
    for j, rewrite in enumerate(rewrites):
        edit_where = f"{where}.requested_rewrite[{j}]"
        edit = _edit_from_rewrite(rewrite, j, case_id, edit_where, labels, aliases, qids, edit_triples)
        if isinstance(edit, str):
            result.bad.append(BadRecord(edit_where, edit))
            continue
        result.edits.append(edit)
        edit_ids.append(edit.id)
    _read_base_facts(orig, case_id, where, labels, aliases, result)
    case_record = _case_record(case, case_id, where, edit_ids)
    if isinstance(case_record, str):
        result.bad.append(BadRecord(where, case_record))
    else:
        result.cases.append(case_record)


def _target(rewrite: dict, key: str) -> tuple[Any, Any]:
    target = rewrite.get(key)
    if target is None:
        return None, None
    if not isinstance(target, dict):
        return target, None
    return target.get("str"), target.get("id")


def _edit_from_rewrite(
    rewrite: Any,
    j: int,
    case_id: str,
    where: str,
    labels: dict[str, str],
    aliases: dict[str, tuple[str, ...]],
    qids: dict[str, str],
    edit_triples: Any,
) -> EditRecord | str:
    if not isinstance(rewrite, dict):
        return f"expected a JSON object, got {_type_name(rewrite)}"
    if not isinstance(rewrite.get("target_new"), dict):
        return "field 'target_new' must be an object with 'str' and 'id'"
    prompt, subject, relation_id = rewrite.get("prompt"), rewrite.get("subject"), rewrite.get("relation_id")
    new_obj, new_id = _target(rewrite, "target_new")
    old_obj, old_id = _target(rewrite, "target_true")
    for name, value in (("prompt", prompt), ("subject", subject), ("target_new.str", new_obj)):
        problem = _text_problem(name, value, required=True)
        if problem:
            return problem
    if "{}" not in prompt:
        return "field 'prompt' has no '{}' placeholder for the subject"
    if relation_id is not None and not isinstance(relation_id, str):
        return f"field 'relation_id' must be a string, got {_type_name(relation_id)}"
    relation = labels.get(relation_id or "") or _label_from_prompt(prompt)
    description = _describe(prompt, subject, new_obj)
    edit = EditRecord(
        id=f"mquake:{case_id}:{j}",
        subject=subject,
        relation=relation,
        object=new_obj,
        description=description,
        relation_id=relation_id,
        old_object=old_obj if isinstance(old_obj, str) else None,
        subject_id=_subject_qid(j, relation_id, new_id, edit_triples) or qids.get(subject),
        object_id=new_id if isinstance(new_id, str) else None,
        old_object_id=old_id if isinstance(old_id, str) else None,
        subject_aliases=aliases.get(subject, ()),
        object_aliases=aliases.get(new_obj, ()),
        old_object_aliases=aliases.get(old_obj, ()) if isinstance(old_obj, str) else (),
        case_id=case_id,
        prompt=prompt,
        question=rewrite.get("question") if isinstance(rewrite.get("question"), str) else None,
        source=where,
    )
    return validate_edit(edit) or edit


def _describe(prompt: str, subject: str, obj: str) -> str:
    """The edit as one sentence: the filled cloze prompt followed by the new object."""
    sentence = f"{prompt.replace('{}', subject)} {obj}"
    return sentence if sentence.endswith((".", "!", "?")) else sentence + "."


def _label_from_prompt(prompt: str) -> str:
    # only used when no labelled triple in the file names this relation
    return " ".join(prompt.replace("{}", " ").split()).lower()


def _subject_qid(j: int, relation_id: Any, new_id: Any, edit_triples: Any) -> str | None:
    """The subject's Wikidata id from `orig.edit_triples`, which list (s, r, o*) per edit."""
    if not isinstance(edit_triples, list):
        return None
    if j < len(edit_triples) and _is_str_triple(edit_triples[j]):
        s, r, o = edit_triples[j]
        if r == relation_id and o == new_id:
            return s
    matches = {t[0] for t in edit_triples if _is_str_triple(t) and t[1] == relation_id and t[2] == new_id}
    return matches.pop() if len(matches) == 1 else None


def _read_base_facts(
    orig: Any, case_id: str, where: str, labels: dict[str, str], aliases: dict[str, tuple[str, ...]], result: ReadResult
) -> None:
    """Base facts come from the pre-edit chain only: the post-edit chain is the gold answer path."""
    if not isinstance(orig, dict) or "triples" not in orig:
        return
    ids, labelled = orig.get("triples"), orig.get("triples_labeled")
    if not isinstance(ids, list) or not isinstance(labelled, list) or len(ids) != len(labelled):
        result.bad.append(
            BadRecord(f"{where}.orig", "'triples' and 'triples_labeled' must be lists of the same length")
        )
        return
    for k, (id_triple, label_triple) in enumerate(zip(ids, labelled)):
        fact_where = f"{where}.orig.triples[{k}]"
        if not _is_str_triple(id_triple) or not _is_str_triple(label_triple):
            result.bad.append(BadRecord(fact_where, "expected [subject, relation, object] string triples"))
            continue
        s, r, o = label_triple
        problem = next(
            (
                p
                for p in (
                    _text_problem(n, v, required=True) for n, v in zip(("subject", "relation", "object"), (s, r, o))
                )
                if p
            ),
            None,
        )
        if problem:
            result.bad.append(BadRecord(fact_where, problem))
            continue
        result.base_facts.append(
            BaseFact(
                subject=s,
                relation=labels.get(id_triple[1], r),
                object=o,
                relation_id=id_triple[1],
                subject_id=id_triple[0],
                object_id=id_triple[2],
                case_id=case_id,
                source=fact_where,
                subject_aliases=aliases.get(s, ()),
                object_aliases=aliases.get(o, ()),
            )
        )


def _case_record(case: dict, case_id: str, where: str, edit_ids: list[str]) -> Case | str:
    questions = case.get("questions")
    if not isinstance(questions, list) or not all(isinstance(q, str) for q in questions):
        return "field 'questions' must be a list of strings"
    new_answer = case.get("new_answer")
    if not isinstance(new_answer, str):
        return f"field 'new_answer' must be a string, got {_type_name(new_answer)}"
    hops = []
    for k, hop in enumerate(case.get("new_single_hops") or []):
        if (
            not isinstance(hop, dict)
            or not isinstance(hop.get("question"), str)
            or not isinstance(hop.get("answer"), str)
        ):
            return f"new_single_hops[{k}] must be an object with string 'question' and 'answer'"
        hops.append(
            GoldHop(
                question=hop["question"],
                answer=hop["answer"],
                aliases=_str_tuple(hop.get("answer_alias")),
                cloze=hop.get("cloze") if isinstance(hop.get("cloze"), str) else None,
            )
        )
    return Case(
        case_id=case_id,
        questions=tuple(questions),
        new_answer=new_answer,
        new_answer_aliases=_str_tuple(case.get("new_answer_alias")),
        hops=tuple(hops),
        edit_ids=tuple(edit_ids),
        source=where,
    )


def _str_tuple(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(v for v in value if isinstance(v, str))
