"""The graph linker: entity names keyed in the graph, and text linked through them.

`GraphLinker` keeps the names' normalised keys in the graph
(`(:NameKey {key})-[:NAMES {surface, primary}]->(:Entity)`), up to date
incrementally, and links text by looking its word spans up there. Answering
uses it: a new process links its first question without rebuilding anything
(the in-memory gazetteer took 14.5 s per process at 100k edits). It follows
the same rules as kgtool.ingest.linking's Gazetteer (see that module).
"""
from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any, Iterable

from kgtool.core.text import _LOOKALIKES, clean_text, normalize
from kgtool.ingest.linking import (
    Mention,
    _needs_exact_case,
    canonical_id,
    choose_entity,
    fold_key,
    folded_choice,
    is_qid,
    lower_for_capitalised,
    ordinary_word,
    strip_accents,
    writes_case,
)

_RUN = re.compile(r"\S+")
_OPENERS = "\"'([{\u00bf\u00a1"
_CLOSERS = ".,;:!?\"')]}\u2026"
_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")  # between two letters, as in "New-York"
_SYNC_BATCH = 2000
MAX_SPAN_TOKENS = 24  # longer names are titles nobody types into a question
_CACHE_MAX = 200_000
# 2: names with accents are also keyed accent-folded; a store keyed before is rekeyed there once
KEYS_VERSION = 2


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
    # a stored name keeps its control characters; its words are read as a question's are (core.text.clean_text)
    text = clean_text(surface).translate(_LOOKALIKES)
    return tuple((text[a:b].lower() if lower else text[a:b]) for a, b in word_spans(text))


def name_keys(name: str | None, aliases: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The stored keys of an entity's names: {key, surface, primary}, one per distinct (key, surface).

    The same rules as Gazetteer.add: the first name is the primary one, names
    that normalise to nothing are skipped, a key that is both the primary name
    and an alias counts as primary. A name with accents is also keyed under its
    accent-folded key (the fallback of `exact_or_folded`); the row's surface
    says which of the two keys it is.
    """
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for position, raw in enumerate([name, *aliases]):
        if not isinstance(raw, str):
            continue
        key = normalize(raw)
        if not key:
            continue
        surface = raw.strip()
        for k in dict.fromkeys((key, fold_key(key))):
            row = rows.setdefault((k, surface), {"key": k, "surface": surface, "primary": False})
            row["primary"] = row["primary"] or position == 0
    return list(rows.values())


def exact_or_folded(key: str, rows: Iterable[tuple[str, str, bool]]) -> list[tuple[str, str, bool]]:
    """The (entity, surface, primary) rows a span's key links to: the names that are the key exactly,
    else those equal to it once accent-folded, only when they belong to one entity (Gazetteer.link's
    rule). `rows`: what the key and its folded key found."""
    rows = list(dict.fromkeys(rows))
    exact = [r for r in rows if _surface_key(r[1]) == key]
    if exact:
        return exact
    folded = [r for r in rows if fold_key(_surface_key(r[1])) == fold_key(key)]
    return folded if folded_choice(e for e, _s, _p in folded) else []


@lru_cache(maxsize=1 << 16)
def _surface_key(surface: str) -> str:
    return normalize(surface)


def _same_words(words: tuple[str, ...], lowered: tuple[str, ...], surface: str, exact: bool) -> bool:
    own_case = _needs_exact_case(surface)
    name_words = _name_words(surface, not own_case)
    if exact:
        return (words if own_case else lowered) == name_words
    plain = strip_accents if own_case else fold_key
    return tuple(plain(w) for w in (words if own_case else lowered)) == tuple(plain(w) for w in name_words)


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
        refold = state["keys_version"] != KEYS_VERSION
        if state["linked"] is not None and state["linked"] == state["entities"] and not refold:
            self._ready = True
            return 0
        keyed, longest = 0, self._max_tokens
        stale = self.db.read("link/stale_entities", refold=refold)
        for start in range(0, len(stale), _SYNC_BATCH):
            rows = []
            for entity in stale[start : start + _SYNC_BATCH]:
                keys = name_keys(entity["name"], entity["aliases"])
                longest = max([longest, *(len(word_spans(clean_text(k["surface"]))) for k in keys)])
                rows.append({"id": entity["id"], "name": entity["name"] or "", "alias_count": len(entity["aliases"]),
                             "keys": keys})
            self.db.write("link/write_keys", rows=rows)
            keyed += len(rows)
        self._max_tokens = min(longest, MAX_SPAN_TOKENS)
        self.db.write("link/drop_orphan_keys")
        self.db.write("link/mark_state", entities=state["entities"], max_tokens=self._max_tokens,
                      keys_version=KEYS_VERSION)
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
        return choose_entity((e, p) for e, _s, p in self._rows_for(key))

    def candidates(self, mention: str) -> list[str]:
        """Every entity id that has this name (else this name accent-folded, see exact_or_folded), in id order."""
        key = normalize(mention)
        return list(dict.fromkeys(e for e, _s, _p in self._rows_for(key))) if key else []

    def _rows_for(self, key: str) -> list[tuple[str, str, bool]]:
        found = self._lookup([key, fold_key(key)])
        return exact_or_folded(key, found[key] + (found[fold_key(key)] if fold_key(key) != key else []))

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
        # a span with accents also looks its folded key up: a name typed without them was keyed there
        rows = self._lookup([*(k for _i, _j, k in spans), *(fold_key(k) for _i, _j, k in spans if not k.isascii())])
        cased = writes_case(matched)
        hits = []
        for i, j, key in spans:
            found = rows[key] if key.isascii() else rows[key] + rows[fold_key(key)]
            if not found:
                continue  # most spans name nothing: their words need not be cut out (~40 % of a passage's cost)
            found = exact_or_folded(key, found)
            words = tuple(matched[a:b] for a, b in tokens[i:j])
            lowered = tuple(w.lower() for w in words)
            if j - i == 1 and ordinary_word(words[0], i == 0 or matched[tokens[i - 1][0]:tokens[i - 1][1]]):
                continue
            # the key only finds candidates; as in the gazetteer's matchers, the span's words
            # must be the name's words (accent-folded for a folded key), in any case unless the
            # name needs its own case
            fitting = [(e, s, p) for e, s, p in found
                       if _same_words(words, lowered, s, _surface_key(s) == key)
                       and not (cased and lower_for_capitalised("".join(words), s))]
            if fitting:
                hits.append((i, j, key, fitting))
        # spaCy's filter_spans: most tokens first, then the earliest; no overlaps
        hits.sort(key=lambda h: (-(h[1] - h[0]), h[0]))
        taken: set[int] = set()
        mentions = []
        for i, j, key, fitting in hits:
            if taken.intersection(range(i, j)):
                continue
            taken.update(range(i, j))
            start, end = tokens[i][0], tokens[j - 1][1]
            entity_id = choose_entity((e, p) for e, _s, p in fitting)
            mentions.append(Mention(start, end, entity_id, text[start:end]))
        mentions.sort(key=lambda m: m.start_char)
        return mentions

