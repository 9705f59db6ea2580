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

from pathlib import Path

from kgtool.core.formats import EDITS, detect_format
from kgtool.errors import InputError
from kgtool.ingest.records import ReadResult
from kgtool.ingest.edit_checks import (  # noqa: F401  (the checks every reader shares, imported from here too)
    MAX_ID_CHARS,
    MAX_NAME_CHARS,
    MAX_RELATION_CHARS,
    MAX_TEXT_CHARS,
    _aliases_problem,
    _edit_problem,
    aliases_problem,
    oversize,
    text_problem,
    type_name,
    validate_edit,
)
from kgtool.ingest.jsonl_edits import JsonlEdits, count_lines, iter_jsonl, read_jsonl  # noqa: F401
from kgtool.ingest.mquake_reader import read_mquake, relation_labels  # noqa: F401


FORMATS = EDITS.formats


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
