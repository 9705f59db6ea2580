"""Entity normalisation, canonical ids and two linkers with the same rules.

Canonical entity ids are Wikidata Q-ids when the corpus gives one, otherwise
"name:" + the normalised surface form, so "Hey Jude" and " hey  JUDE. " are the
same entity. `normalize` is pure Python (it runs for every name of every edit).

- `Gazetteer`: names held in memory, free text scanned with spaCy
  PhraseMatchers. Ingestion uses it over the records of one file.
- `GraphLinker`: the names' normalised keys stored in the graph
  (`(:NameKey {key})-[:NAMES {surface, primary}]->(:Entity)`), kept up to date
  incrementally, and text linked by looking its word spans up there. Answering
  uses it: a new process links its first question without rebuilding anything
  (the in-memory gazetteer took 14.5 s per process at 100k edits).

Both link a span when its normalised text is a known name (short or all-caps
names only with their own case), prefer longer spans, and resolve a name
shared by several entities to the one whose primary name it is.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from kgtool.core.text import _LOOKALIKES, _SPACES, normalize
from kgtool.errors import InputError, require

if TYPE_CHECKING:  # pragma: no cover
    from kgtool.ingest.records import BaseFact, EditRecord

NAME_PREFIX = "name:"
_QID = re.compile(r"^Q[1-9][0-9]*$")
def is_qid(value: str | None) -> bool:
    return bool(value) and _QID.match(value) is not None


def canonical_id(name: str, qid: str | None = None) -> str:
    """The entity id for a name: its Wikidata Q-id if given, else "name:<normalised name>"."""
    if qid is not None and is_qid(qid.strip()):
        return qid.strip()
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
    return len(name) <= _EXACT_CASE_MAX_LEN or (
        len(letters) >= 2 and all(c.isupper() for c in letters) and " " not in name
    )


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
            pattern = (entity_id, name.strip())
            if pattern not in self._seen_patterns:
                self._seen_patterns.add(pattern)
                self._pending.append(pattern)

    def _register(self, entity_id: str, key: str, *, primary: bool) -> None:
        ids = self._all.setdefault(key, [])
        if entity_id not in ids:
            ids.append(entity_id)
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
        """The entity id whose name or alias equals the mention after normalisation."""
        return self._by_name.get(normalize(mention))

    def candidates(self, mention: str) -> list[str]:
        """Every entity id that has this name, in the order they were added."""
        return list(self._all.get(normalize(mention), ()))

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
        mentions = [self._mention(text, span) for span in filter_spans(spans)]
        if use_ner:
            mentions.extend(self._unlinked(text, doc.ents, mentions))
        mentions.sort(key=lambda m: m.start_char)
        return mentions

    def _mention(self, text: str, span: Any) -> Mention:
        surface = text[span.start_char : span.end_char]
        # several entities can share a name: the linker's choice decides, as in link()
        entity_id = self.link(surface) or span.label_
        return Mention(span.start_char, span.end_char, entity_id, surface)

    @staticmethod
    def _unlinked(text: str, ents: Iterable[Any], linked: list[Mention]) -> Iterator[Mention]:
        for ent in ents:
            if any(m.start_char < ent.end_char and ent.start_char < m.end_char for m in linked):
                continue
            yield Mention(ent.start_char, ent.end_char, None, text[ent.start_char : ent.end_char])


# --------------------------------------------------------------------------- the graph linker

_RUN = re.compile(r"\S+")
_OPENERS = "\"'([{\u00bf\u00a1"
_CLOSERS = ".,;:!?\"')]}\u2026"
_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")  # between two letters, as in "New-York"
_SYNC_BATCH = 2000
MAX_SPAN_TOKENS = 24  # longer names are titles nobody types into a question
_CACHE_MAX = 200_000


def word_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of the words and punctuation marks of `text`.

    Where names meet text, this splits as spaCy's English tokenizer does:
    leading quotes and brackets, trailing punctuation (not the dots of "U.S."
    or "D.C.") and a possessive 's are tokens of their own, and so is a
    hyphen between letters.
    """
    t = text.translate(_LOOKALIKES)
    out: list[tuple[int, int]] = []
    for run in _RUN.finditer(t):
        start, end = run.span()
        while start < end and t[start] in _OPENERS:
            out.append((start, start + 1))
            start += 1
        tail: list[tuple[int, int]] = []
        while start < end:
            last = t[end - 1]
            if last == "." and "." in t[start : end - 1] and t[start : end - 1].replace(".", "").isalpha():
                break  # an abbreviation keeps its final dot
            if last in _CLOSERS:
                tail.append((end - 1, end))
                end -= 1
            elif end - start > 2 and t[end - 2 : end].lower() == "'s":
                tail.append((end - 2, end))
                end -= 2
            else:
                break
        if start < end:
            pos = start
            for hyphen in _HYPHEN.finditer(t, start, end):
                out.append((pos, hyphen.start()))
                out.append((hyphen.start(), hyphen.end()))
                pos = hyphen.end()
            out.append((pos, end))
        out.extend(reversed(tail))
    return out


@lru_cache(maxsize=1 << 16)
def _name_words(surface: str, lower: bool) -> tuple[str, ...]:
    text = surface.translate(_LOOKALIKES)
    return tuple((text[a:b].lower() if lower else text[a:b]) for a, b in word_spans(text))


def name_keys(name: str | None, aliases: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The stored keys of an entity's names: {key, surface, primary}, one per distinct (key, surface).

    The same rules as Gazetteer.add: the first name is the primary one, names
    that normalise to nothing are skipped, a key that is both the primary name
    and an alias counts as primary.
    """
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for position, raw in enumerate([name, *aliases]):
        if not isinstance(raw, str):
            continue
        key = normalize(raw)
        if not key:
            continue
        surface = raw.strip()
        row = rows.setdefault((key, surface), {"key": key, "surface": surface, "primary": False})
        row["primary"] = row["primary"] or position == 0
    return list(rows.values())


class GraphLinker:
    """Links names and free text to entities through name keys stored in the graph.

    `sync` keys the entities that are new or gained aliases since the last
    sync (an entity's keys are rewritten whole); whether anything is to do is
    decided from the entity count and a marker node, so a process that finds
    the keys current pays one read. Ingestion through KnowledgeGraph drops the
    marker (new aliases do not change the count), and so does `forget`.
    `find_mentions` looks every word span of the text up in one read. Safe to
    share between threads.
    """

    def __init__(self, db: Any):
        self.db = db
        self._lock = threading.Lock()
        self._ready = False
        self._max_tokens = 1
        self._rows: dict[str, list[tuple[str, str, bool]]] = {}
        self._names: dict[str, str] = {}

    # ------------------------------------------------------------------ keys in the graph

    def sync(self) -> int:
        """Key what changed since the last sync; returns how many entities were (re)keyed."""
        with self._lock:
            return self._sync()

    def _sync(self) -> int:
        state = self.db.read("link/state")[0]
        self._max_tokens = max(1, state["max_tokens"] or 1)
        if state["linked"] is not None and state["linked"] == state["entities"]:
            self._ready = True
            return 0
        keyed, longest = 0, self._max_tokens
        stale = self.db.read("link/stale_entities")
        for start in range(0, len(stale), _SYNC_BATCH):
            rows = []
            for entity in stale[start : start + _SYNC_BATCH]:
                keys = name_keys(entity["name"], entity["aliases"])
                longest = max([longest, *(len(word_spans(k["surface"])) for k in keys)])
                rows.append({"id": entity["id"], "name": entity["name"] or "", "alias_count": len(entity["aliases"]),
                             "keys": keys})
            self.db.write("link/write_keys", rows=rows)
            keyed += len(rows)
        self._max_tokens = min(longest, MAX_SPAN_TOKENS)
        self.db.write("link/drop_orphan_keys")
        self.db.write("link/mark_state", entities=state["entities"], max_tokens=self._max_tokens)
        self._rows, self._names = {}, {}
        self._ready = True
        return keyed

    def ensure(self) -> None:
        if not self._ready:
            with self._lock:
                if not self._ready:
                    self._sync()

    @staticmethod
    def forget(db: Any) -> None:
        """Make the next sync look at every entity (after writes that add aliases)."""
        db.write("link/forget_state")

    # ------------------------------------------------------------------ lookups

    def _read(self, name: str, **params) -> list[dict]:
        """A lookup as one auto-commit read in a read-access session.

        An answer links its question (and sometimes evidence) with these; a
        managed read transaction costs a second round trip for its COMMIT,
        which showed as ~2 ms of a ~40 ms answer. A single read statement needs
        no transaction boundary of its own, and the read-access session still
        sends it to a reader on a cluster, with the bookmarks of earlier writes.
        """
        with self.db.session(read_only=True) as session:
            return self.db.run_in(session, name, **params)

    def _lookup(self, keys: Iterable[str]) -> dict[str, list[tuple[str, str, bool]]]:
        self.ensure()
        keys = list(dict.fromkeys(keys))
        cached = self._rows
        out = {k: cached[k] for k in keys if k in cached}
        missing = [k for k in keys if k not in out]
        if missing:
            found: dict[str, list[tuple[str, str, bool]]] = {k: [] for k in missing}
            names: dict[str, str] = {}
            for row in self._read("link/lookup", keys=missing):
                found[row["key"]].append((row["id"], row["surface"], bool(row["primary"])))
                if row["name"] is not None:
                    names[row["id"]] = row["name"]
            for rows in found.values():
                rows.sort()  # entity id order: the same choice in every process
            out.update(found)
            with self._lock:
                if len(self._rows) > _CACHE_MAX:
                    self._rows = {}
                self._rows.update(found)
                # what entity_names would read for the entities just linked
                if len(self._names) > _CACHE_MAX:
                    self._names = {}
                self._names.update(names)
        return out

    def link(self, mention: str) -> str | None:
        """The entity id whose name or alias equals the mention after normalisation."""
        key = normalize(mention) if isinstance(mention, str) else ""
        if not key:
            return None
        return choose_entity((e, p) for e, _s, p in self._lookup([key])[key])

    def candidates(self, mention: str) -> list[str]:
        """Every entity id that has this name, in id order."""
        key = normalize(mention)
        return list(dict.fromkeys(e for e, _s, _p in self._lookup([key])[key])) if key else []

    def resolve(self, name: str, qid: str | None = None) -> str:
        if qid is not None and is_qid(qid):
            return qid
        return self.link(name) or canonical_id(name)

    def entity_names(self, entity_ids: Iterable[str]) -> dict[str, str]:
        """Primary names of entities (ids not in the graph are left out)."""
        ids = list(dict.fromkeys(entity_ids))
        cached = self._names
        out = {i: cached[i] for i in ids if i in cached}
        missing = [i for i in ids if i not in out]
        if missing:
            fetched = {r["id"]: r["name"] for r in self._read("link/entity_names", ids=missing)
                       if r["name"] is not None}
            out.update(fetched)
            with self._lock:
                if len(self._names) > _CACHE_MAX:
                    self._names = {}
                self._names.update(fetched)
        return out

    def find_mentions(self, text: str) -> list[Mention]:
        """Known entity names in `text`, longest non-overlapping matches first (Gazetteer's rules)."""
        if not text:
            return []
        self.ensure()
        matched = text.translate(_LOOKALIKES)
        tokens = word_spans(matched)
        spans: list[tuple[int, int, str]] = []
        for i, (start, _end) in enumerate(tokens):
            for j in range(i, min(len(tokens), i + self._max_tokens)):
                key = normalize(matched[start : tokens[j][1]])
                if key:
                    spans.append((i, j + 1, key))
        rows = self._lookup(k for _i, _j, k in spans)
        hits = []
        for i, j, key in spans:
            words = tuple(matched[a:b] for a, b in tokens[i:j])
            lowered = tuple(w.lower() for w in words)
            # the key only finds candidates; as in the gazetteer's matchers, the span's words
            # must be the name's words, in any case unless the name needs its own case
            if any((words if _needs_exact_case(s) else lowered) == _name_words(s, not _needs_exact_case(s))
                   for _e, s, _p in rows[key]):
                hits.append((i, j, key))
        # spaCy's filter_spans: most tokens first, then the earliest; no overlaps
        hits.sort(key=lambda h: (-(h[1] - h[0]), h[0]))
        taken: set[int] = set()
        mentions = []
        for i, j, key in hits:
            if taken.intersection(range(i, j)):
                continue
            taken.update(range(i, j))
            start, end = tokens[i][0], tokens[j - 1][1]
            entity_id = choose_entity((e, p) for e, _s, p in rows[key])
            mentions.append(Mention(start, end, entity_id, text[start:end]))
        mentions.sort(key=lambda m: m.start_char)
        return mentions
