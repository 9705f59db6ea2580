"""The checks an edit record passes before it is stored: input limits, field types and text rules.

An edit's text fields must be non-empty strings (optional ones may be absent)
within the limits below, encodable as UTF-8 (no lone surrogates); alias fields
are lists of such names. Every problem is a short reason the readers report as
``file:line: reason``.
"""
from __future__ import annotations

import re
from typing import Any

from kgtool.ingest.records import EditRecord

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


