"""Document collections read into documents and passages (no database here).

Formats (`read_documents(path, format)`):

- ``hotpotqa``: the HotpotQA corpus, a JSON object ``{title: [sentence, ...]}``
  (or a HotpotQA question file, whose ``context`` pairs are read);
- ``musique`` and ``2wiki``: a JSON list of ``{"title", "text"}`` paragraphs (or
  a question file: MuSiQue ``paragraphs`` / 2Wiki ``context``); paragraphs
  with the same title are passages of one document;
- ``jsonl``: one ``{"id", "title"?, "text"}`` object per line, each a document;
- ``text``: a ``.txt`` file, or a directory of them (searched recursively); each
  file is a document and its blank-line separated paragraphs are passages.

Duplicates (`on_duplicate`, `--on-duplicate`): a document is named by its title
(hotpotqa, musique, 2wiki: within the file), its id (jsonl) or its file (text).
A record naming a document already read with the same text adds nothing (it is
counted as a repeat). With other text, the policy decides, and the summary counts
and lists every such record:

- ``merge`` (default for the title formats): the texts are passages of the one
  document, in reading order (a HotpotQA corpus object with a title twice, which
  plain JSON reading would silently reduce to its last entry, included);
- ``error`` (default for jsonl): the later record is refused as a bad record
  naming the first (skipped and listed, exit 1; --strict writes nothing);
- ``skip``: the first record is kept and the later ones skipped, listed.

Corpus paragraphs stay whole (they are the unit benchmarks name as gold);
``text`` and ``jsonl`` passages longer than `max_passage_chars` are cut at
sentence boundaries. A bad record (not JSON, no text, a wrong type) is skipped
and reported as ``file:line`` or ``file:title``; with strict=True nothing is
written if any record is bad.
"""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterator

from kgtool.core.formats import DOCS, detect_format
from kgtool.errors import ConfigError, InputError
from kgtool.ingest.doc_records import DocReadResult, DocumentRecord, PassageRecord, chunk, split_text, with_sentences
from kgtool.ingest.readers import MAX_ID_CHARS
from kgtool.ingest.records import BadRecord

FORMATS = DOCS.formats
ON_DUPLICATE = ("merge", "error", "skip")
MAX_TITLE_CHARS = 1_000
MAX_PASSAGE_CHARS = 3_000

# ------------------------------------------------------------------------------- readers


class _Bad(Exception):
    pass


def guess_format(path: Path) -> str:
    return detect_format(path, None, DOCS)


def read_documents(path: str | Path, format: str | None = None, *,
                   max_passage_chars: int = MAX_PASSAGE_CHARS, on_duplicate: str | None = None) -> DocReadResult:
    """Read a document collection; see the module docstring for the formats and for duplicates
    (on_duplicate: merge, error or skip; None for the format's default)."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    fmt = detect_format(path, format, DOCS)
    if path.is_dir() and fmt != "text":
        raise InputError(f"{path} is a directory; only --format text reads directories (of .txt files)")
    policy = on_duplicate or ("error" if fmt == "jsonl" else "merge")
    if policy not in ON_DUPLICATE:
        raise ConfigError(f"unknown duplicate policy {on_duplicate!r}; use one of {', '.join(ON_DUPLICATE)}")
    result = DocReadResult(str(path), fmt, on_duplicate=policy)
    builder = _Builder(result, max_passage_chars)
    if fmt == "text":
        _read_text(path, builder)
    elif fmt == "jsonl":
        _read_jsonl(path, builder)
    else:
        _read_corpus(path, fmt, builder)
    if not result.documents and not result.bad:
        raise InputError(f"{path}: no documents found (is --format {fmt} right?)")
    return result


class _Builder:
    """Collects passages into documents (one per title within a file) with stable ids."""

    def __init__(self, result: DocReadResult, max_chars: int):
        self.result = result
        self.max_chars = max_chars
        self._docs: dict[str, DocumentRecord] = {}
        self._texts: dict[str, set[str]] = defaultdict(set)

    def add(self, doc_id: str, title: str, source: str, where: str,
            pieces: list[tuple[str, tuple[int, ...]]]) -> None:
        doc = self._docs.get(doc_id)
        if doc is None:
            doc = self._docs[doc_id] = DocumentRecord(doc_id, title, source, where)
            self.result.documents.append(doc)
        elif not self._duplicate(doc, where, pieces):
            return
        for text, starts in pieces:
            if text in self._texts[doc_id]:
                continue  # the same paragraph twice in one document is one passage
            self._texts[doc_id].add(text)
            position = len(doc.passages)
            doc.passages.append(PassageRecord(f"{doc_id}#{position}", doc_id, title, text, starts, position))

    def _duplicate(self, doc: DocumentRecord, where: str, pieces) -> bool:
        """A record naming `doc`, read before: True when its passages are to be added (see ON_DUPLICATE)."""
        if all(text in self._texts[doc.id] for text, _ in pieces):
            self.result.repeats += 1  # the same text again: one passage, nothing lost
            return False
        name = f"document {doc.title or doc.id!r}"
        policy = self.result.on_duplicate
        if policy == "error":
            raise _Bad(f"{name} was already read at {doc.where} with other text; nothing of this record was "
                       "kept (--on-duplicate merge keeps both texts as passages, skip keeps the first quietly)")
        if policy == "skip":
            self.result.duplicates.append(f"{where}: skipped: {name} was already read at {doc.where} "
                                          "with other text (--on-duplicate skip)")
            return False
        self.result.duplicates.append(f"{where}: merged: {name} was already read at {doc.where}; this text "
                                      "is another passage of it (--on-duplicate merge)")
        return True

    def bad(self, where: str, reason: str) -> None:
        self.result.bad.append(BadRecord(where, reason))


def _title(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise _Bad(f"the title must be a non-empty string, got {value!r:.60}")
    if len(value) > MAX_TITLE_CHARS:
        raise _Bad(f"the title is longer than {MAX_TITLE_CHARS} characters")
    return " ".join(value.split())


def _text(value: Any, what: str = "text") -> str:
    if not isinstance(value, str) or not value.strip():
        raise _Bad(f'"{what}" must be a non-empty string, got {value!r:.60}')
    return value


def _sentences(value: Any) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(s, str) for s in value):
        raise _Bad(f"expected a non-empty list of sentence strings, got {value!r:.60}")
    if not "".join(value).strip():
        raise _Bad("all sentences are empty")
    return value


class _Pairs(dict):
    """A JSON object that remembers every (key, value) pair in order, a key given twice included
    (a plain dict keeps the last value of a repeated key and drops the others without a word)."""

    pairs: list


def _object_pairs(pairs: list) -> dict:
    obj = _Pairs(pairs)
    obj.pairs = pairs
    return obj


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"), object_pairs_hook=_object_pairs)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno})") from None


def _doc_id(path: Path, title: str) -> str:
    # readable and stable for a file: "<file stem>:<title>"; the same title in two files is two documents
    return f"{path.stem}:{title}"


def _read_corpus(path: Path, fmt: str, builder: _Builder) -> None:
    data = _load_json(path)
    source = str(path.resolve())
    if isinstance(data, dict):
        if fmt != "hotpotqa":
            raise InputError(f"{path}: a JSON object of title -> sentences is the HotpotQA corpus; "
                             f"pass --format hotpotqa (or give {fmt} as a list of {{\"title\", \"text\"}})")
        for title, sentences in getattr(data, "pairs", data.items()):
            where = f"{path}:{title!r:.80}"
            try:
                name = _title(title)
                builder.add(_doc_id(path, name), name, source, where, [with_sentences(_sentences(sentences))])
            except _Bad as bad:
                builder.bad(where, str(bad))
        return
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON object (HotpotQA corpus) or a list, got {type(data).__name__}")
    for n, record in enumerate(data):
        where = f"{path}:record {n + 1}"
        try:
            if not isinstance(record, dict):
                raise _Bad(f"expected a JSON object, got {type(record).__name__}")
            for title, pieces in _paragraphs(record, fmt):
                builder.add(_doc_id(path, title), title, source, f"{where} ({title:.60})", pieces)
        except _Bad as bad:
            builder.bad(where, str(bad))


def _paragraphs(record: dict, fmt: str) -> Iterator[tuple[str, list]]:
    """(title, passages) of one corpus record, or of the paragraphs a question record carries."""
    if "paragraphs" in record:  # a MuSiQue question
        paragraphs = record["paragraphs"]
        if not isinstance(paragraphs, list):
            raise _Bad('"paragraphs" must be a list')
        for p in paragraphs:
            if not isinstance(p, dict):
                raise _Bad('every "paragraphs" entry must be an object with "title" and "paragraph_text"')
            yield _title(p.get("title")), [split_text(_text(p.get("paragraph_text"), "paragraph_text"))]
    elif "context" in record:  # a HotpotQA or 2Wiki question: [[title, [sentences]], ...]
        context = record["context"]
        if not isinstance(context, list) or not all(isinstance(c, list) and len(c) == 2 for c in context):
            raise _Bad('"context" must be a list of [title, [sentences]] pairs')
        for title, sentences in context:
            yield _title(title), [with_sentences(_sentences(sentences))]
    else:
        title = _title(record.get("title"))
        text = record.get("text", record.get("paragraph_text"))
        if isinstance(text, list):  # sentences
            yield title, [with_sentences(_sentences(text))]
        else:
            yield title, [split_text(_text(text))]


def _read_jsonl(path: Path, builder: _Builder) -> None:
    source = str(path.resolve())
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    seen: dict[str, str] = {}
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise _Bad(f"not valid JSON ({exc.msg})") from None
            if not isinstance(record, dict):
                raise _Bad(f"expected a JSON object, got {type(record).__name__}")
            raw_id = record.get("id")
            if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)) or not str(raw_id).strip():
                raise _Bad('missing "id" (a string or number that names the document)')
            doc_id = str(raw_id).strip()
            if len(doc_id) > MAX_ID_CHARS:
                raise _Bad(f'"id" is {len(doc_id):,} characters long (limit {MAX_ID_CHARS:,})')
            if doc_id in seen and builder.result.on_duplicate == "error":
                raise _Bad(f"duplicate id {doc_id!r} (first at line {seen[doc_id]}); nothing of this record "
                           "was kept (--on-duplicate merge keeps both texts as passages, skip keeps the first)")
            title = _title(record["title"]) if record.get("title") is not None else ""
            pieces = chunk(_text(record.get("text")), builder.max_chars)
            seen.setdefault(doc_id, str(lineno))
            builder.add(doc_id, title, source, where, pieces)
        except _Bad as bad:
            builder.bad(where, str(bad))


def _read_text(path: Path, builder: _Builder) -> None:
    files = sorted(p for p in path.rglob("*.txt") if p.is_file()) if path.is_dir() else [path]
    root = path if path.is_dir() else path.parent
    if path.is_dir() and not files:
        raise InputError(f"{path}: no .txt files in this directory")
    for file in files:
        where = str(file)
        try:
            try:
                raw = file.read_text(encoding="utf-8-sig")
            except UnicodeDecodeError as exc:
                raise _Bad(f"not UTF-8 text ({exc.reason} at byte {exc.start}); convert it to UTF-8") from None
            paragraphs = [p for p in raw.replace("\r\n", "\n").split("\n\n") if p.strip()]
            if not paragraphs:
                raise _Bad("the file is empty")
            pieces = [piece for p in paragraphs for piece in chunk(" ".join(p.split()), builder.max_chars)]
            relative = file.relative_to(root).with_suffix("").as_posix()
            builder.add(f"{root.name}:{relative}", file.stem.replace("_", " "), str(file.resolve()), where, pieces)
        except _Bad as bad:
            builder.bad(where, str(bad))
