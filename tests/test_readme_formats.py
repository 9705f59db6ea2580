"""Every field the input readers accept is named in README.md, and README stays short.

The fields are read off the readers' code, not listed by hand, so a field added to a reader
without a line in README fails here: the string keys a reader looks up in a record
(`record["x"]`, `record.get("x")`, `_text(record, "x")`, ...) and those of the field tuples a
reader loops over (module-level tuples or sets named *FIELDS*, *NAMES*, *TEXT*, *REQUIRED*,
*OPTIONAL*). MQuAKE's published format is read as published and named in README by its main keys
only, so its reader is not scanned.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
READERS = ["kgtool/eval/qa_data.py", "kgtool/ingest/facts.py", "kgtool/ingest/jsonl_edits.py",
           "kgtool/ingest/edit_checks.py", "kgtool/ingest/doc_readers.py"]
KEY_CALLS = {"get", "_text", "_texts", "_id", "_positive_int"}
FIELD_TUPLE = re.compile(r"FIELDS|NAMES|TEXT|REQUIRED|OPTIONAL")
FIELD_NAME = re.compile(r"^_?[a-z][a-z0-9_]*$")


def _strings(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def reader_fields(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            found.add(node.slice.value)
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            # a call on a dict written in place (`_texts({"hop": h}, "hop")`) reads no record field
            if name in KEY_CALLS and not (node.args and isinstance(node.args[0], ast.Dict)):
                for arg in node.args:
                    if isinstance(arg, (ast.Constant, ast.Tuple)):
                        found |= _strings(arg)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and FIELD_TUPLE.search(t.id)
                                                for t in node.targets):
            if isinstance(node.value, (ast.Tuple, ast.List, ast.Set, ast.Call)):
                found |= _strings(node.value)
    return {f for f in found if isinstance(f, str) and FIELD_NAME.match(f)}


def test_the_scan_finds_the_fields_of_each_reader():
    # the scan itself must see fields, or the test below would pass on nothing
    assert {"question", "answers", "hop_answers", "answerable"} <= reader_fields(REPO / "kgtool/eval/qa_data.py")
    assert {"head", "tail", "head_aliases", "relation_id"} <= reader_fields(REPO / "kgtool/ingest/facts.py")
    assert {"old_object", "subject_aliases"} <= reader_fields(REPO / "kgtool/ingest/edit_checks.py")


def test_every_field_a_reader_accepts_is_named_in_readme():
    named = set(re.findall(r"`([^`\s]+)`", README))
    missing = {path: sorted(reader_fields(REPO / path) - named) for path in READERS}
    missing = {path: fields for path, fields in missing.items() if fields}
    assert not missing, f"fields the readers accept that README.md does not name: {missing}"


def test_readme_is_short():
    lines = README.count("\n")
    assert lines <= 260, f"README.md has {lines} lines; move detail to docs/ and measurements to bench/README.md"
