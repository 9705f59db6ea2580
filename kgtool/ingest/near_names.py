"""Names typed with a slip: link "Velprin" to the graph's "Velaprin" when nothing else links.

The graph linker (kgtool.ingest.graph_linker) links a span only when its normalised words are an
entity's name or alias. A question that misspells its one name ("Who developed Crnolix?") then links
nothing, and every method answers "no entity of the question is in the graph". This module is the
fallback for such a text: the entity_names full-text index proposes entities whose words are a few
edits away from the text's name-like words (Lucene fuzzy terms), and a span of the text is read as an
entity's name only when

- the span holds a word that looks like a name (capitalised where the text writes case, or with
  digits; in a text typed in lower case, any word that is not a function word),
- its optimal-string-alignment distance to the name (normalised, so case and accents do not count)
  is at most 1 for a name of 5 to 9 characters and 2 for a longer one (shorter names are taken only
  as typed: one slip in four letters is another name as often as a typo), and
- no other entity's name is as close (two equally near names are not guessed between).

The bounds are fixed by that reasoning, not fitted to any question set.
"""
from __future__ import annotations

import re
from typing import Any, Iterable

from rapidfuzz.distance import OSA

from kgtool.core.bounds import MAX_FUZZY_TERM_CHARS, query_terms
from kgtool.core.text import STOPWORDS, normalize
from kgtool.ingest.linking import Mention, fold_key, writes_case

# name length (normalised characters) -> the edits a slip may have made
_ONE_EDIT_FROM = 5
_TWO_EDITS_FROM = 10
_MAX_NAME_WORDS = 6
_CANDIDATES = 50  # entities the index proposes; a question has few name-like words
_WORD = re.compile(r"[^\W_]+")  # a possessive's "s" is a word of its own, as the linker splits it


# how a question or request opens (English): a text that opens otherwise is read for a slip only with a "?"
_QUESTION_OPENERS = frozenset("""what which who whom whose where when why how is are was were do does did can could
    will would has have had name list tell give find show""".split())
_MAX_QUESTION_WORDS = 40  # longer texts are passages, whose unknown names are not slips of known ones


def asks_question(text: str) -> bool:
    """Whether `text` reads as a question or a request (not a passage's sentence): it ends with a question
    mark or opens with a question word or an imperative of asking, and is question-length."""
    words = _WORD.findall(text)
    if not words or len(words) > _MAX_QUESTION_WORDS:
        return False
    return text.rstrip().endswith("?") or words[0].lower() in _QUESTION_OPENERS


def allowed_edits(name: str) -> int:
    n = len(name)
    return 2 if n >= _TWO_EDITS_FROM else 1 if n >= _ONE_EDIT_FROM else 0


def _name_like(word: str, cased: bool, opening: bool) -> bool:
    if any(ch.isdigit() for ch in word) and any(ch.isalpha() for ch in word):
        return True
    if word.lower() in STOPWORDS:
        return False
    return not cased or (word[:1].isupper() and not (opening and word.lower() in STOPWORDS))


def fuzzy_query(text: str) -> str:
    """A Lucene query of the text's name-like words, each allowed the edits a name of its length may
    carry ("" when there is none). Words are letters and digits only: nothing reaches Lucene's syntax;
    words longer than MAX_FUZZY_TERM_CHARS are left out, and at most _CANDIDATES terms are kept."""
    cased = writes_case(text)
    terms = []
    for i, match in enumerate(_WORD.finditer(text)):
        word = fold_key(match.group().lower())
        # a word past the fuzzy bound is no misspelt name, and Lucene's edit automaton of a huge term
        # exhausts the server's memory (kgtool.core.bounds)
        if not _ONE_EDIT_FROM <= len(word) <= MAX_FUZZY_TERM_CHARS or not _name_like(match.group(), cased, i == 0):
            continue
        terms.append(f"{word}~{2 if len(word) >= _TWO_EDITS_FROM else 1}")
    return " ".join(query_terms(terms, max_chars=MAX_FUZZY_TERM_CHARS + 2, limit=_CANDIDATES))


class NearNames:
    """Misspelt names of `text` linked through the entity_names index of `db` (see the module docstring)."""

    def __init__(self, db: Any):
        self.db = db

    def mentions(self, text: str) -> list[Mention]:
        query = fuzzy_query(text)
        if not query:
            return []
        with self.db.session(read_only=True) as session:
            rows = self.db.run_in(session, "link/near_names", query=query, limit=_CANDIDATES)
        return near_mentions(text, ((r["id"], [r["name"], *r["aliases"]]) for r in rows))


def _windows(words: list, size: int):
    for width in (size, size - 1, size + 1):
        if width >= 1:
            for i in range(len(words) - width + 1):
                yield i, words[i : i + width]


def near_mentions(text: str, entities: Iterable[tuple[str, list[str]]]) -> list[Mention]:
    """Spans of `text` read as one of `entities`' names (id, names) under the module's bounds."""
    cased = writes_case(text)
    words = list(_WORD.finditer(text))
    # (start word, end word) -> (the nearest distance, {entity id: its name's key} at that distance)
    best: dict[tuple[int, int], tuple[int, dict[str, str]]] = {}
    for entity_id, names in entities:
        for name in names:
            key = fold_key(normalize(name or ""))
            size = len(_WORD.findall(key))
            if not key or size > _MAX_NAME_WORDS or allowed_edits(key) == 0:
                continue
            # a slip can join or split words ("Lannings" for "Lanning's"): windows one word shorter or longer
            for i, span in _windows(words, size):
                if not any(_name_like(w.group(), cased, w.start() == 0) for w in span):
                    continue
                typed = fold_key(normalize(text[span[0].start() : span[-1].end()]))
                distance = OSA.distance(typed, key, score_cutoff=allowed_edits(key))
                if distance > allowed_edits(key):
                    continue  # too far: another name
                where = (i, i + len(span))
                found = best.get(where)
                if found is None or distance < found[0]:
                    best[where] = (distance, {entity_id: key})
                elif distance == found[0]:
                    found[1].setdefault(entity_id, key)
    # the nearest spans first, then the longest; no overlaps; two different names equally near are not
    # guessed between (entities that share the one name are: the first id, as the linker's namesakes)
    chosen: list[Mention] = []
    taken: set[int] = set()
    for (i, j), (distance, near) in sorted(best.items(), key=lambda kv: (kv[1][0], -(kv[0][1] - kv[0][0]))):
        if len(set(near.values())) != 1 or taken.intersection(range(i, j)):
            continue
        taken.update(range(i, j))
        if distance == 0:
            continue  # the name as written: the linker's to link or to refuse, not a slip of another
        start, end = words[i].start(), words[j - 1].end()
        chosen.append(Mention(start, end, min(near), text[start:end]))
    return sorted(chosen, key=lambda m: m.start_char)
