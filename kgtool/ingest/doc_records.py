"""The records a document collection is read into, and how text is cut into passages and sentences."""
from __future__ import annotations

from dataclasses import dataclass, field

from kgtool.ingest.doc_extract import sentence_spans
from kgtool.ingest.records import BadRecord


@dataclass(frozen=True)
class PassageRecord:
    id: str
    document_id: str
    title: str
    text: str
    sentences: tuple[int, ...]  # start offset of each sentence in text
    position: int

    @property
    def description(self) -> str:
        """The text under the name edit extractors read (rebel, llm)."""
        return self.text


@dataclass
class DocumentRecord:
    id: str
    title: str
    source: str  # the file, resolved
    where: str  # file:line or file:title, for messages
    passages: list[PassageRecord] = field(default_factory=list)


@dataclass
class DocReadResult:
    path: str
    format: str
    documents: list[DocumentRecord] = field(default_factory=list)
    bad: list[BadRecord] = field(default_factory=list)
    on_duplicate: str = "merge"
    duplicates: list[str] = field(default_factory=list)  # records naming a document read before, other text
    repeats: int = 0  # records naming a document read before with the same text (nothing to add)


# ------------------------------------------------------------------------------- sentences


def with_sentences(sentences: list[str]) -> tuple[str, tuple[int, ...]]:
    """Join given sentences (HotpotQA keeps their leading spaces) into one text and their starts."""
    text, starts = "", []
    for sentence in sentences:
        lead = len(sentence) - len(sentence.lstrip())
        if sentence.strip():
            starts.append(len(text) + lead)
        text += sentence
    stripped = text.rstrip()
    return stripped, tuple(s for s in starts if s < len(stripped))


def split_text(text: str) -> tuple[str, tuple[int, ...]]:
    text = text.strip()
    return text, tuple(start for start, _ in sentence_spans(text))


def chunk(text: str, max_chars: int) -> list[tuple[str, tuple[int, ...]]]:
    """Passages of at most `max_chars` (a longer single sentence stays whole), cut at sentence ends."""
    text, starts = split_text(text)
    if len(text) <= max_chars:
        return [(text, starts)] if text else []
    bounds = list(starts) + [len(text)]
    pieces, begin = [], bounds[0] if bounds else 0
    for a, b in zip(bounds, bounds[1:]):
        if b - begin > max_chars and a > begin:
            pieces.append((begin, a))
            begin = a
    pieces.append((begin, len(text)))
    out = []
    for a, b in pieces:
        piece = text[a:b]
        stripped = piece.strip()
        lead = len(piece) - len(piece.lstrip())
        local = tuple(s - a - lead for s in starts if a <= s < b and s - a - lead >= 0)
        if stripped:
            out.append((stripped, local or (0,)))
    return out
