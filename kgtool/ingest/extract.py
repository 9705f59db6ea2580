"""Candidate triple extraction from edit descriptions.

Three extractors share one interface (`extract_batch(edits) -> one candidate
list per edit`):

- AnchorExtractor: no model; the edit's anchor triple (s, r, o*) with the
  description as evidence. The default when no extraction model is available.
- RebelExtractor: REBEL (Babelscape/rebel-large, a BART seq2seq model) over
  each sentence of the description, as in CARE / KEDKG.
- LLMExtractor: any OpenAI-compatible LLM asked for JSON triples.

Candidates are raw: EATR (kgtool.ingest.eatr) decides which ones are kept.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Iterable,
    Protocol,
    Sequence,
    runtime_checkable,
)

from kgtool.core.registry import Registry
from kgtool.errors import ConfigError, require
from kgtool.ingest.linking import normalize
from kgtool.ingest.records import Candidate, EditRecord

if TYPE_CHECKING:  # pragma: no cover
    from kgtool.config import Settings

REBEL_MODEL = "Babelscape/rebel-large"


@runtime_checkable
class Extractor(Protocol):
    name: str

    def extract_batch(self, edits: Sequence[EditRecord]) -> list[list[Candidate]]:
        """One list of candidates per edit, in the order of `edits`."""
        ...


# --------------------------------------------------------------------------- sentences

# Words that end with a period without ending a sentence.
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof st jr sr vs etc inc ltd co corp no nos mt ft gen col lt sgt capt rev hon "
    "e.g i.e cf approx dept univ est fig vol op jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_BOUNDARY = re.compile(r"[.!?\u2026]+[\"'\u2019\u201d)\]]*\s+")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences with a light rule set (no model needed).

    A boundary is sentence punctuation followed by whitespace and an
    upper-case letter, digit or opening quote, unless the word before the
    period is a known abbreviation, a single-letter initial ("H. C. Hoover")
    or a dotted acronym ("U.S."). Text without a boundary is one sentence.
    """
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end()
        if end >= len(text) or not _starts_sentence(text[end]):
            continue
        if text[match.start()] == "." and _abbreviation_before(text, match.start()):
            continue
        piece = text[start:end].strip()
        if piece:
            sentences.append(piece)
        start = end
    rest = text[start:].strip()
    if rest:
        sentences.append(rest)
    return sentences


def _starts_sentence(ch: str) -> bool:
    return ch.isupper() or ch.isdigit() or ch in "\"'\u2018\u201c(["


def _abbreviation_before(text: str, dot: int) -> bool:
    word_start = dot
    while word_start > 0 and not text[word_start - 1].isspace():
        word_start -= 1
    word = text[word_start:dot].lstrip("\"'(\u201c\u2018[")
    if len(word) == 1 and word.isalpha():
        return True  # an initial
    if "." in word:
        return True  # U.S, D.C, e.g
    return word.lower() in _ABBREVIATIONS


# --------------------------------------------------------------------------- anchor


class AnchorExtractor:
    """The anchor triple itself, evidenced by the whole description. Needs no model."""

    name = "anchor"

    def extract_batch(self, edits: Sequence[EditRecord]) -> list[list[Candidate]]:
        return [[Candidate(e.subject, e.relation, e.object, e.description, self.name)] for e in edits]


class CombinedExtractor:
    """Runs several extractors and concatenates their candidates (duplicates dropped)."""

    def __init__(self, extractors: Sequence[Extractor]):
        if not extractors:
            raise ConfigError("CombinedExtractor needs at least one extractor")
        self.extractors = list(extractors)
        self.name = "+".join(x.name for x in self.extractors)

    def extract_batch(self, edits: Sequence[EditRecord]) -> list[list[Candidate]]:
        merged: list[list[Candidate]] = [[] for _ in edits]
        for extractor in self.extractors:
            for bucket, found in zip(merged, extractor.extract_batch(edits)):
                bucket.extend(found)
        return [_unique(bucket) for bucket in merged]


def _unique(candidates: Iterable[Candidate]) -> list[Candidate]:
    seen: set[tuple[str, str, str, str]] = set()
    out = []
    for c in candidates:
        key = (c.head, c.relation, c.tail, c.evidence)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


# --------------------------------------------------------------------------- REBEL

_REBEL_MARKERS = re.compile(r"(<triplet>|<subj>|<obj>)")
_REBEL_NOISE = re.compile(r"<s>|</s>|<pad>")


def decode_rebel(text: str) -> list[tuple[str, str, str]]:
    """Parse REBEL's linearised output into (head, relation, tail) triples.

    REBEL writes ``<triplet> head <subj> tail <obj> relation``; one head can
    carry several ``<subj> tail <obj> relation`` groups and a sentence several
    ``<triplet>`` groups. Note the marker names: the text after ``<subj>`` is
    the *tail* entity and the text after ``<obj>`` the relation. Groups with
    a missing head, tail or relation are dropped; whitespace is collapsed;
    exact repeats are removed.
    """
    text = _REBEL_NOISE.sub(" ", text)
    triples: list[tuple[str, str, str]] = []
    head: str | None = None
    tail: str | None = None
    slot: str | None = None  # which part the next text piece belongs to
    for piece in _REBEL_MARKERS.split(text):
        if piece == "<triplet>":
            head, tail, slot = None, None, "head"
        elif piece == "<subj>":
            tail, slot = None, "tail"
        elif piece == "<obj>":
            slot = "relation"
        else:
            words = " ".join(piece.split())
            if slot == "head":
                head = words
            elif slot == "tail":
                tail = words
            elif slot == "relation":
                if head and tail and words:
                    triple = (head, words, tail)
                    if triple not in triples:
                        triples.append(triple)
                slot = None  # anything after the relation and before a marker is noise
    return triples


class RebelExtractor:
    """REBEL relation extraction on transformers, one input per description sentence.

    The model loads on first use from a local directory or a hub name (hub
    downloads follow the usual Hugging Face cache and HF_HUB_OFFLINE rules).
    """

    name = "rebel"

    def __init__(
        self,
        model: str | Path = REBEL_MODEL,
        *,
        batch_size: int = 8,
        device: str | None = None,
        num_beams: int = 3,
        num_return_sequences: int = 1,
        max_input_tokens: int = 256,
        max_output_tokens: int = 256,
    ):
        if num_return_sequences > num_beams:
            raise ConfigError(f"num_return_sequences ({num_return_sequences}) cannot exceed num_beams ({num_beams})")
        self.model = str(model)
        self.batch_size = max(1, batch_size)
        self.device = device
        self.num_beams = num_beams
        self.num_return_sequences = num_return_sequences
        self.max_input_tokens = max_input_tokens
        self.max_output_tokens = max_output_tokens
        self._tokenizer: Any = None
        self._model: Any = None

    def _load(self) -> tuple[Any, Any]:
        if self._model is None:
            torch = require("torch", "rebel", "REBEL extraction")
            transformers = require("transformers", "rebel", "REBEL extraction")
            device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
            try:
                tokenizer = transformers.AutoTokenizer.from_pretrained(self.model)
                model = transformers.AutoModelForSeq2SeqLM.from_pretrained(self.model)
            except (OSError, ValueError) as exc:
                raise ConfigError(
                    f"could not load the REBEL model {self.model!r} ({exc}); download it once with "
                    f"`huggingface-cli download {REBEL_MODEL}`, pass a local model directory, "
                    "or use the 'anchor' extractor, which needs no model"
                ) from exc
            model.eval()
            self._tokenizer, self._model = tokenizer, model.to(device)
            self.device = device
        return self._tokenizer, self._model

    def extract_batch(self, edits: Sequence[EditRecord]) -> list[list[Candidate]]:
        sentences_per_edit = [split_sentences(e.description) or [e.description] for e in edits]
        unique = list(dict.fromkeys(s for sentences in sentences_per_edit for s in sentences))
        triples = dict(zip(unique, self.extract_sentences(unique)))
        return [
            _unique(
                Candidate(head, relation, tail, sentence, self.name)
                for sentence in sentences
                for head, relation, tail in triples[sentence]
            )
            for sentences in sentences_per_edit
        ]

    def extract_sentences(self, sentences: Sequence[str]) -> list[list[tuple[str, str, str]]]:
        """Triples for each sentence, in order."""
        results: list[list[tuple[str, str, str]]] = []
        for start in range(0, len(sentences), self.batch_size):
            results.extend(self._generate(list(sentences[start : start + self.batch_size])))
        return results

    def _generate(self, batch: list[str]) -> list[list[tuple[str, str, str]]]:
        if not batch:
            return []
        torch = require("torch", "rebel", "REBEL extraction")
        tokenizer, model = self._load()
        inputs = tokenizer(
            batch, return_tensors="pt", padding=True, truncation=True, max_length=self.max_input_tokens
        ).to(model.device)
        with torch.inference_mode():
            generated = model.generate(
                **inputs,
                max_length=self.max_output_tokens,
                num_beams=self.num_beams,
                num_return_sequences=self.num_return_sequences,
                length_penalty=0.0,
            )
        # REBEL's markers are special tokens: skipping special tokens would erase them
        texts = tokenizer.batch_decode(generated, skip_special_tokens=False)
        per_sentence: list[list[tuple[str, str, str]]] = []
        for i in range(len(batch)):
            merged: list[tuple[str, str, str]] = []
            for text in texts[i * self.num_return_sequences : (i + 1) * self.num_return_sequences]:
                merged.extend(t for t in decode_rebel(text) if t not in merged)
            per_sentence.append(merged)
        return per_sentence


def rebel_available(model: str = REBEL_MODEL) -> bool:
    """True when transformers is installed and the REBEL model is on local disk."""
    import importlib.util

    if importlib.util.find_spec("transformers") is None or importlib.util.find_spec("torch") is None:
        return False
    if Path(model).is_dir():
        return True
    from kgtool.models.embed import local_snapshot

    return local_snapshot(model) is not None


# --------------------------------------------------------------------------- LLM

_LLM_SYSTEM = (
    "You turn statements into knowledge-graph triples. Read the text and list every "
    "factual relation it states between two named things as a triple: head entity, "
    "relation, tail entity. Copy entity names exactly as written in the text. Use a "
    "short lower-case relation label in the style of Wikidata properties (for example "
    "'founded by', 'spouse', 'country of citizenship'). Reply with JSON only, shaped as "
    '{"triples": [{"head": "...", "relation": "...", "tail": "..."}]}; '
    'reply {"triples": []} when the text states no relation.'
)


def parse_llm_triples(payload: Any, max_triples: int = 20) -> list[tuple[str, str, str]]:
    """Validate an LLM reply into (head, relation, tail) triples; ValueError on a bad shape."""
    items = payload.get("triples") if isinstance(payload, dict) else payload
    if not isinstance(items, list):
        raise ValueError('expected {"triples": [...]} with a list of triples')
    triples: list[tuple[str, str, str]] = []
    for k, item in enumerate(items):
        if isinstance(item, dict):
            parts = (item.get("head"), item.get("relation"), item.get("tail"))
        elif isinstance(item, (list, tuple)) and len(item) == 3:
            parts = tuple(item)
        else:
            raise ValueError(f"triple {k} must be an object with head, relation and tail")
        if not all(isinstance(p, str) and p.strip() for p in parts):
            raise ValueError(f"triple {k} needs non-empty string head, relation and tail")
        triple = tuple(" ".join(p.split()) for p in parts)
        if triple not in triples:
            triples.append(triple)  # type: ignore[arg-type]
    return triples[:max_triples]


def evidence_sentence(description: str, head: str, tail: str) -> str:
    """The description sentence that mentions both endpoints (else one, else all of it).

    Evidence comes from the source text rather than from the LLM so that it
    is always something the corpus actually says.
    """
    sentences = split_sentences(description) or [description]
    if len(sentences) == 1:
        return sentences[0]
    h, t = normalize(head), normalize(tail)
    lowered = [normalize(s) for s in sentences]
    for wanted in (lambda s: h in s and t in s, lambda s: h in s or t in s):
        for sentence, low in zip(sentences, lowered):
            if wanted(low):
                return sentence
    return description


class LLMExtractor:
    """Triples from an LLM through kgtool's LLM client (JSON replies, validated and re-asked)."""

    name = "llm"

    def __init__(self, client: Any = None, settings: Settings | None = None, *, max_triples: int = 20):
        self._client = client
        self._settings = settings
        self.max_triples = max_triples

    @property
    def client(self) -> Any:
        if self._client is None:
            from kgtool.config import Settings
            from kgtool.models.llm import LLMClient

            self._client = LLMClient(self._settings or Settings.load())
        return self._client

    def extract_batch(self, edits: Sequence[EditRecord]) -> list[list[Candidate]]:
        return [self._extract(edit) for edit in edits]

    def _extract(self, edit: EditRecord) -> list[Candidate]:
        validate: Callable[[Any], list[tuple[str, str, str]]] = lambda payload: parse_llm_triples(
            payload, self.max_triples
        )
        triples = self.client.chat_json(_LLM_SYSTEM, f"Text:\n{edit.description}", validate, purpose="extract")
        return _unique(Candidate(h, r, t, evidence_sentence(edit.description, h, t), self.name) for h, r, t in triples)


# --------------------------------------------------------------------------- factory


EXTRACTORS = Registry("extractor")
EXTRACTORS.register("anchor", AnchorExtractor, description="no model: the edit's own (subject, relation, object)")
EXTRACTORS.register("rebel", RebelExtractor, description="REBEL (Babelscape/rebel-large) through transformers")
EXTRACTORS.register("llm", LLMExtractor, description="triples from an OpenAI-compatible LLM endpoint")
EXTRACTORS.register("mentions", "kgtool.ingest.doc_extract:MentionExtractor",
                    description="documents, no model: entity mentions linked by the gazetteer and the phrase joining them")
EXTRACTORS.register("deps", "kgtool.ingest.doc_deps:DependencyExtractor",
                    description="documents, spaCy's small English parser (spacy extra): the same mentions, related by "
                                "subject, verb and object")


def get_extractor(spec: str = "auto", *, settings: Settings | None = None, **options: Any) -> Extractor:
    """Build an extractor by name: a registered one (anchor | rebel | llm), auto, a REBEL model
    directory, or several joined by '+' (e.g. rebel+anchor: their candidates together).

    auto picks REBEL only when transformers is installed and REBEL-large is
    already on local disk; otherwise the model-free anchor extractor.
    `options` go to the RebelExtractor constructor (batch_size, device, ...).
    """
    key = (spec or "auto").strip()
    if "+" in key:
        return CombinedExtractor([get_extractor(part, settings=settings, **options) for part in key.split("+")])
    lowered = key.lower()
    if lowered == "anchor":
        return EXTRACTORS.create("anchor")
    if lowered == "llm":
        return EXTRACTORS.create("llm", settings=settings)
    if lowered == "rebel":
        return EXTRACTORS.create("rebel", **options)
    if lowered == "auto":
        return EXTRACTORS.create("rebel", **options) if rebel_available() else EXTRACTORS.create("anchor")
    if Path(key).is_dir():
        return RebelExtractor(key, **options)
    raise ConfigError(f"unknown extractor {spec!r}; use {', '.join(EXTRACTORS.names())}, auto, a REBEL model directory, or several joined by +")
