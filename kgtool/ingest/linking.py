"""Entity normalisation, canonical ids and two linkers with the same rules.

Canonical entity ids are Wikidata Q-ids when the corpus gives one, otherwise
"name:" + the normalised surface form, so "Hey Jude" and " hey  JUDE. " are the
same entity. `normalize` is pure Python (it runs for every name of every edit).

- `Gazetteer`: names held in memory, free text scanned with spaCy
  PhraseMatchers. Ingestion uses it over the records of one file.
- `GraphLinker` (kgtool.ingest.graph_linker): the names' normalised keys
  stored in the graph, and text linked by looking its word spans up there.

Both link a span when its normalised text is a known name (short or all-caps
names only with their own case), prefer longer spans, and resolve a name
shared by several entities to the one whose primary name it is. A span no name
has exactly falls back to its accent-folded key (`fold_key`: "Tekeze" for
"Tekezé", as people type names without diacritics) when that key belongs to one
entity only; two entities whose names differ only by accents stay apart.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from kgtool.core.text import _LOOKALIKES, _SPACES, STOPWORDS, fold, normalize
from kgtool.errors import InputError, require

if TYPE_CHECKING:  # pragma: no cover
    from kgtool.ingest.records import BaseFact, EditRecord

NAME_PREFIX = "name:"
ID_PREFIX = "id:"  # an entity the source identified by an id of its own (not a Wikidata Q-id)
_QID = re.compile(r"^Q[1-9][0-9]*$")
def is_qid(value: str | None) -> bool:
    return bool(value) and _QID.match(value) is not None


def canonical_id(name: str, qid: str | None = None) -> str:
    """The entity id for a name: its Wikidata Q-id if given, "id:<id>" for any other id the source
    gives (so two things of one name with different ids stay two entities: a city and a country
    called alike), else "name:<normalised name>"."""
    if qid is not None and qid.strip():
        given = qid.strip()
        return given if is_qid(given) or given.startswith(ID_PREFIX) else ID_PREFIX + given
    return _name_id(name)


@lru_cache(maxsize=1 << 16)  # an ingest asks for the same few names of each edit several times
def _name_id(name: str) -> str:
    key = normalize(name) if isinstance(name, str) else ""
    if not key:
        # names made only of punctuation ("?", "...") are still names
        key = _SPACES.sub(" ", unicodedata.normalize("NFKC", name or "")).strip().casefold()
    if not key:
        raise InputError(f"cannot make an entity id from the empty name {name!r}; give the entity a name")
    return NAME_PREFIX + key


def fold_key(key: str) -> str:
    """The accent-folded form of a normalised key ("tekezé river" -> "tekeze river"): a fallback for
    lookups only; entity ids and stored keys stay the exact normalised names."""
    return fold(key)


def strip_accents(text: str) -> str:
    """The text without its combining marks, case kept ("Tekezé" -> "Tekeze")."""
    return unicodedata.normalize("NFC", "".join(
        c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c)))


def folded_choice(entity_ids: Iterable[str]) -> str | None:
    """The entity a folded key links to: the one entity holding it, or None when several do (names that
    differ only by accents are distinct entities, and the text does not say which one it means)."""
    distinct = set(entity_ids)
    return next(iter(distinct)) if len(distinct) == 1 else None


@dataclass(frozen=True, slots=True)
class Mention:
    """A span of text that names a known entity (entity_id None: unlinked, see find_mentions)."""

    start_char: int
    end_char: int
    entity_id: str | None
    surface: str


def load_nlp(prefer_statistical: bool = True) -> Any:
    """A spaCy English pipeline: en_core_web_md / _sm when installed, else blank.

    The statistical models add named-entity mentions for names the gazetteer
    does not know; tokenisation (all the gazetteer needs) is the same either way.
    """
    spacy = require("spacy", "spacy", "entity linking")
    if prefer_statistical:
        for model in ("en_core_web_md", "en_core_web_sm"):
            try:
                return spacy.load(model, disable=["lemmatizer", "parser", "textcat"])
            except (OSError, ImportError, ValueError):
                continue
    return spacy.blank("en")


_PATTERN_CHUNK = 20_000  # names tokenised per call: bounded memory, few calls

# Short or all-caps aliases ("US", "de", "PL") collide with ordinary words when
# matched case-insensitively ("tell us"), so they only match with their exact case.
_EXACT_CASE_MAX_LEN = 3


def _needs_exact_case(name: str) -> bool:
    letters = [c for c in name if c.isalpha()]
    # a longer code with digits ("KRX4", "B737") is no ordinary word in any case: "krx4" still names it
    coded = len(name) > _EXACT_CASE_MAX_LEN and any(c.isdigit() for c in name)
    return len(name) <= _EXACT_CASE_MAX_LEN or (
        len(letters) >= 2 and all(c.isupper() for c in letters) and " " not in name and not coded
    )


# a sentence ends here, so the next word is capitalised as the sentence's opening, not as a name
_SENTENCE_ENDS = frozenset(".!?:")


def writes_case(text: str) -> bool:
    """Whether the text capitalises something after its first word: only then does its case say which
    words it writes as names (a question typed in lower case says nothing about them)."""
    first_space = text.find(" ")
    return first_space >= 0 and any(ch.isupper() for ch in text[first_space:])


def lower_for_capitalised(span: str, name: str) -> bool:
    """The text writes the span in lower case where the name is capitalised: the ordinary word ("the
    city where ...") and not the entity a document corpus made of a heading or a sentence's opening
    ("City"). A name stored in lower case ("piano") is matched as before."""
    return span == span.lower() and not any(ch.isdigit() for ch in span) and name != name.lower()


def ordinary_word(word: str, before: str | bool) -> bool:
    """A one-word span that is a function word ("Who", "That", "it") is a name only where the text
    capitalises it and no sentence opens: at an opening, the capital is the sentence's, not a name's.
    `before`: the token before the word, or True at the start of the text."""
    if word.lower() not in STOPWORDS:
        return False
    opening = before is True or before in _SENTENCE_ENDS
    return opening or not word[:1].isupper()


def choose_entity(rows: Iterable[tuple[str, bool]]) -> str | None:
    """The entity a shared name links to, from (entity id, is its primary name) pairs in order.

    The entity whose primary name it is wins over those that have it as an
    alias; otherwise the first one keeps it.
    """
    first = None
    for entity_id, primary in rows:
        if primary:
            return entity_id
        if first is None:
            first = entity_id
    return first


class Gazetteer:
    """Maps entity names and aliases to canonical entity ids.

    `link` is an exact lookup of the normalised name (a dict access).
    `find_mentions` scans text with spaCy PhraseMatchers built lazily on first
    use and extended only with names added since, so repeated calls are cheap.

    When two entities share a name, the entity for which it is the primary
    name (the first name passed to `add`) wins over one that has it as an
    alias; otherwise the first entity added keeps it. `candidates` lists all.

    `nlp` defaults to `load_nlp(use_statistical)`: en_core_web_md/sm when
    installed (their NER proposes unlinked mentions), else blank English.
    Only the tokenizer is used for matching, so both give the same matches.
    """

    def __init__(self, nlp: Any = None, *, use_statistical: bool = True):
        self._nlp = nlp
        self._use_statistical = use_statistical
        self._by_name: dict[str, str] = {}
        self._primary: set[str] = set()  # normalised names that are some entity's primary name
        self._all: dict[str, list[str]] = {}
        self._folded: dict[str, list[str]] = {}  # fold_key -> the exact keys that fold to it
        self._names: dict[str, list[str]] = {}  # entity id -> names as given
        self._pending: list[tuple[str, str]] = []  # (entity id, surface) not yet in the matchers
        self._seen_patterns: set[tuple[str, str]] = set()
        self._lower_matcher: Any = None
        self._exact_matcher: Any = None

    # ------------------------------------------------------------------ building

    def add(self, entity_id: str, names: Iterable[str]) -> None:
        """Register names (the first one is the primary name) for an entity."""
        for position, name in enumerate(names):
            if not isinstance(name, str):
                continue
            key = normalize(name)
            if not key:
                continue
            self._register(entity_id, key, primary=position == 0)
            self._names.setdefault(entity_id, [])
            if name not in self._names[entity_id]:
                self._names[entity_id].append(name)
            surfaces = [name.strip()]
            if not surfaces[0].isascii():
                surfaces.append(strip_accents(surfaces[0]))  # the name typed without its accents
            for surface in surfaces:
                pattern = (entity_id, surface)
                if pattern not in self._seen_patterns:
                    self._seen_patterns.add(pattern)
                    self._pending.append(pattern)

    def _register(self, entity_id: str, key: str, *, primary: bool) -> None:
        ids = self._all.setdefault(key, [])
        if entity_id not in ids:
            ids.append(entity_id)
        exact_keys = self._folded.setdefault(fold_key(key), [])
        if key not in exact_keys:
            exact_keys.append(key)
        current = self._by_name.get(key)
        if current is None or (primary and key not in self._primary):
            self._by_name[key] = entity_id
        if primary:
            self._primary.add(key)

    def add_edit(self, edit: EditRecord) -> None:
        """Register the subject, new object and old object of an edit with their aliases."""
        self.add(canonical_id(edit.subject, edit.subject_id), (edit.subject, *edit.subject_aliases))
        self.add(canonical_id(edit.object, edit.object_id), (edit.object, *edit.object_aliases))
        if edit.old_object:
            self.add(canonical_id(edit.old_object, edit.old_object_id), (edit.old_object, *edit.old_object_aliases))

    def add_fact(self, fact: BaseFact) -> None:
        self.add(canonical_id(fact.subject, fact.subject_id), (fact.subject, *fact.subject_aliases))
        self.add(canonical_id(fact.object, fact.object_id), (fact.object, *fact.object_aliases))

    @classmethod
    def from_records(
        cls, edits: Iterable[EditRecord] = (), base_facts: Iterable[BaseFact] = (), **kwargs: Any
    ) -> Gazetteer:
        gazetteer = cls(**kwargs)
        for edit in edits:
            gazetteer.add_edit(edit)
        for fact in base_facts:
            gazetteer.add_fact(fact)
        return gazetteer

    # ------------------------------------------------------------------ lookups

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, entity_id: object) -> bool:
        return entity_id in self._names

    def names(self, entity_id: str) -> list[str]:
        return list(self._names.get(entity_id, ()))

    def link(self, mention: str) -> str | None:
        """The entity id whose name or alias equals the mention after normalisation, else the one entity
        whose name does once both are accent-folded (see folded_choice)."""
        key = normalize(mention)
        found = self._by_name.get(key)
        if found is not None or not key:
            return found
        return folded_choice(self._by_name[k] for k in self._folded.get(fold_key(key), ()))

    def candidates(self, mention: str) -> list[str]:
        """Every entity id that has this name (else this name accent-folded), in the order they were added."""
        key = normalize(mention)
        if key in self._all:
            return list(self._all[key])
        return list(dict.fromkeys(e for k in self._folded.get(fold_key(key), ()) for e in self._all[k]))

    def resolve(self, name: str, qid: str | None = None) -> str:
        """A canonical id for any name: a Q-id if given, a linked entity, else the name id."""
        if qid is not None and is_qid(qid):
            return qid
        return self.link(name) or canonical_id(name)

    # ------------------------------------------------------------------ mentions

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            self._nlp = load_nlp(prefer_statistical=self._use_statistical)
        return self._nlp

    def _sync_matchers(self) -> None:
        if self._lower_matcher is None:
            from spacy.matcher import PhraseMatcher

            self._lower_matcher = PhraseMatcher(self.nlp.vocab, attr="LOWER")
            self._exact_matcher = PhraseMatcher(self.nlp.vocab, attr="ORTH")
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        grouped: dict[tuple[bool, str], list[tuple[int, ...]]] = {}
        for start in range(0, len(pending), _PATTERN_CHUNK):
            chunk = pending[start : start + _PATTERN_CHUNK]
            keywords = self._pattern_keywords([surface for _, surface in chunk])
            for (entity_id, surface), (lower, orth) in zip(chunk, keywords):
                if not lower:
                    continue
                exact = _needs_exact_case(surface)
                grouped.setdefault((exact, entity_id), []).append(orth if exact else lower)
        for (exact, entity_id), patterns in grouped.items():
            matcher = self._exact_matcher if exact else self._lower_matcher
            matcher.add(entity_id, patterns)

    def _pattern_keywords(self, surfaces: list[str]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """(LOWER hashes, ORTH hashes) of each surface's tokens.

        Building one Doc per name costs more than the matching itself, so the
        names are tokenised together, newline-separated: the tokenizer splits
        on whitespace first, so each name gets the tokens it would get alone.
        """
        from spacy.attrs import IDX, IS_SPACE, LOWER, ORTH

        text = "\n".join(s.translate(_LOOKALIKES) for s in surfaces)
        doc = self.nlp.tokenizer(text)
        # one array call instead of a Python Token object per token
        columns = doc.to_array([IDX, IS_SPACE, LOWER, ORTH]).tolist() if len(doc) else []
        keywords: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        row, start = 0, 0
        for surface in surfaces:
            end = start + len(surface)
            lower: list[int] = []
            orth: list[int] = []
            while row < len(columns) and columns[row][0] < end:
                idx, is_space, lower_hash, orth_hash = columns[row]
                if not is_space and idx >= start:
                    lower.append(lower_hash)
                    orth.append(orth_hash)
                row += 1
            keywords.append((tuple(lower), tuple(orth)))
            start = end + 1
        return keywords

    def find_mentions(self, text: str, *, include_unlinked: bool = False) -> list[Mention]:
        """Known entity names in `text`, longest non-overlapping matches first.

        Matching ignores case, except for short or all-caps names (see
        `_needs_exact_case`). With include_unlinked=True and a pipeline that
        finds entities (a statistical model's ner, or an entity_ruler), named
        entities the gazetteer does not know are added with entity_id=None.
        """
        if not text:
            return []
        from spacy.util import filter_spans

        self._sync_matchers()
        matched = text.translate(_LOOKALIKES)
        nlp = self.nlp
        # any component that sets doc.ents (ner, entity_ruler) can propose unlinked mentions
        use_ner = include_unlinked and bool(nlp.pipe_names)
        doc = nlp(matched) if use_ner else nlp.make_doc(matched)
        spans = list(self._lower_matcher(doc, as_spans=True)) + list(self._exact_matcher(doc, as_spans=True))
        cased = writes_case(matched)
        mentions = [m for m in (self._mention(text, span, cased) for span in filter_spans(spans)) if m is not None]
        if use_ner:
            mentions.extend(self._unlinked(text, doc.ents, mentions))
        mentions.sort(key=lambda m: m.start_char)
        return mentions

    def _mention(self, text: str, span: Any, cased: bool) -> Mention | None:
        """The span as a mention, or None where the text writes an ordinary word (see ordinary_word and
        lower_for_capitalised: the graph linker's rules)."""
        surface = text[span.start_char : span.end_char]
        if len(span) == 1 and ordinary_word(span.text, True if span.start == 0 else span.doc[span.start - 1].text):
            return None
        # several entities can share a name: the linker's choice decides, as in link()
        entity_id = self.link(surface)
        if entity_id is None:
            if len(self.candidates(surface)) > 1:
                return None  # an accent-less name of several entities: which one is not said
            entity_id = span.label_
        if cased and surface == surface.lower():
            key = fold_key(normalize(surface))
            fitting = [e for e in self.candidates(surface)
                       if any(fold_key(normalize(n)) == key and not lower_for_capitalised(surface, n)
                              for n in self._names[e])]
            if not fitting:
                return None
            entity_id = entity_id if entity_id in fitting else fitting[0]
        return Mention(span.start_char, span.end_char, entity_id, surface)

    @staticmethod
    def _unlinked(text: str, ents: Iterable[Any], linked: list[Mention]) -> Iterator[Mention]:
        for ent in ents:
            if any(m.start_char < ent.end_char and ent.start_char < m.end_char for m in linked):
                continue
            yield Mention(ent.start_char, ent.end_char, None, text[ent.start_char : ent.end_char])
