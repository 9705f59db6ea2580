"""Is the answer of the kind the question asks for? Read from the graph's own relations.

"What currency is used where X was born?" asks for a currency. A chain that stops at the birthplace
explains "born" and names a place; the reading check sees no relation phrase left over, because
"currency" is the question word's noun (the answer's type), not a relation phrase. Most graphs carry no
types, but many name a relation after a kind ("currency", "country", "continent"): the things that
are a currency are the objects of `currency` facts. So when the graph has a relation whose label is
the type word itself, an answer is of that kind only if some fact of a relation naming the word ends at
it (or the chain's last relation names it: "country of citizenship" for "which country"). A graph
without such a relation says nothing, and the check is silent.

A time ("when", "what year", "which date") is a literal: an answer without a digit in it is not one;
and a person ("who") is named: an answer without a letter in it (a year, a count) is not one.

A place asked by a noun no relation is named after ("in what city ...": WordNet files the noun's first
sense under places) is read from relations said with "in" (kgtool.reason.kinds.puts_in_place): their
objects are places, their subjects things somewhere. An answer that is the subject of such a fact and
the object of none (an observatory located in a town) is a thing, not the place asked for.

A noun that names a place by the people who hold it ("which country": WordNet's first sense of
"country" is a politically organized body of people, its second the territory it occupies) asks for
the whole such a people holds, not for a place within it: an answer that such a relation puts inside
another place (a city located in its country) is a part of what was asked, and the graph, which names
no country, cannot tell that it is one. The check then says so; the answer is not `answered`. (A graph
that puts its countries inside continents loses those answers to `unverified` too: the price of not
calling a city a country.)

A graph that names no relation after the kind may still answer with a common noun, written in lower case
("goalkeeper" for "which club does X play for?", reached by a relation of positions played). WordNet
files every noun sense under a coarse kind (a person, a group, an artifact, an act...): a common noun
none of whose senses is filed where a sense of the asked noun is cannot be one, unless the last
relation's label names the asked noun or a near synonym of it (before any preposition: a relation of
positions played on a team does not end at teams).
"""
from __future__ import annotations

from typing import Callable, TypeVar

from kgtool.core.text import normalise_label
from kgtool.reason.kinds import puts_in_place
from kgtool.reason.lexicon import Lexicon
from kgtool.reason.question import PREPOSITIONS

# the question word's nouns that ask for a point in time: its answer is written with digits
TIME_KINDS = frozenset({"time", "year", "date"})
# the question words' kinds whose answer is a name: written with letters, never digits alone
WHO_KINDS = frozenset({"person"})
# the question words' own kinds ("where": a place, which a school one studied at may well be)
_UNTYPED = frozenset({"person", "place", "time"})
T = TypeVar("T")


def _words(label: str) -> list[str]:
    return normalise_label(label.replace("_", " ")).split()


# What is derived from a relation vocabulary is kept for the last two vocabularies seen (all relations,
# and the stated ones): the catalog hands out the same dicts until it reloads, and a document store's
# ~16k labels are split once, not at every answer's status (0.1 s each time).
_derived: dict[str, list[tuple[object, object]]] = {}


def _per_vocabulary(name: str, vocabulary: dict[str, list[str]], build: Callable[[dict], T]) -> T:
    seen = _derived.setdefault(name, [])
    for vocab, value in seen:
        if vocab is vocabulary:
            return value
    value = build(vocabulary)
    seen[:] = [(vocabulary, value), *seen[:1]]
    return value


def _build_word_index(vocabulary: dict[str, list[str]]) -> dict[str, tuple[list[str], bool]]:
    """word -> (keys of the relations whose label holds it, whether one label is that word alone)."""
    keys: dict[str, list[str]] = {}
    alone: set[str] = set()
    for key, phrases in vocabulary.items():
        label_words = _words(phrases[0] if phrases else key)
        for word in dict.fromkeys(label_words):
            keys.setdefault(word, []).append(key)
        if len(label_words) == 1:
            alone.add(label_words[0])
    return {word: (named, word in alone) for word, named in keys.items()}


def _build_place_keys(vocabulary: dict[str, list[str]]) -> list[str]:
    """The relations that put their subject in a place."""
    return [key for key, phrases in vocabulary.items() if puts_in_place(phrases[0] if phrases else key)]


def relations_of_kind(vocabulary: dict[str, list[str]], kind: str) -> list[str] | None:
    """Keys of the relations whose label has the kind's word in it, or None when no relation's
    label IS the word (the graph names no relation after this kind: nothing to check against)."""
    word = normalise_label(kind)
    if " " in word:
        return None
    keys, exact = _per_vocabulary("words", vocabulary, _build_word_index).get(word, ([], False))
    return keys if exact else None


def kind_gap(db, vocabulary: dict[str, list[str]], kind: str | None, last_relation_key: str,
             answer: str, answer_id: str | None, *, read_backwards: bool = False) -> str | None:
    """Why the answer is not of the asked kind, or None when it is (or the graph cannot tell).
    `read_backwards`: the last hop answers with the head of its fact, which a relation naming the
    kind does not make of that kind (the head of a `country` fact is what lies in the country)."""
    if not kind or not answer:
        return None
    if kind in TIME_KINDS:
        return None if any(ch.isdigit() for ch in answer) else f"the question asks for a {kind}; {answer!r} is not one"
    if kind in WHO_KINDS and not any(ch.isalpha() for ch in answer):  # a year or a count names no one
        return f"the question asks for a {kind}; {answer!r} is not one"
    keys = relations_of_kind(vocabulary, kind)
    if keys is None and answer_id is not None:
        named = _per_vocabulary("words", vocabulary, _build_word_index).get(normalise_label(kind), ([], False))[0]
        if last_relation_key in named and not read_backwards:
            return None  # the last relation names the kind ("country of citizenship" for "which country")
        return (_place_gap(db, vocabulary, kind, last_relation_key, answer, answer_id, read_backwards)
                or _common_noun_gap(vocabulary, kind, last_relation_key, answer))
    if not keys or (last_relation_key in keys and not read_backwards) or answer_id is None:
        return None
    rows = db.read("graph/object_of_relations", entity_id=answer_id, keys=keys)
    if rows and rows[0]["found"]:
        return None
    return f"the question asks for a {kind}; no {kind} fact of the graph ends at {answer!r}"


def asks_place(kind: str | None) -> bool:
    """Is the question's noun a place ("city"), by its most frequent WordNet sense, or a people's land
    ("country": `asks_whole_place`)?"""
    if not kind or kind in _UNTYPED or " " in kind:
        return False
    lexicon = Lexicon.load()
    return lexicon is not None and (lexicon.names_place(kind) or lexicon.names_polity(kind))


def asks_whole_place(kind: str | None) -> bool:
    """Does the question's noun name a place by the people who hold it ("country"; see the module
    docstring): a place inside another place is not one?"""
    if not kind or kind in _UNTYPED or " " in kind:
        return False
    lexicon = Lexicon.load()
    return lexicon is not None and lexicon.names_polity(kind)


def _place_gap(db, vocabulary: dict[str, list[str]], kind: str, last_relation_key: str, answer: str,
               answer_id: str, read_backwards: bool) -> str | None:
    """The place check of the module docstring (None when the graph cannot tell)."""
    if not asks_place(kind):
        return None
    keys = _per_vocabulary("places", vocabulary, _build_place_keys)
    whole = asks_whole_place(kind)
    # a last hop said with "in" reaches a place: enough for "which city", not for a whole ("which country")
    if not keys or (last_relation_key in keys and not read_backwards and not whole):
        return None
    rows = db.read("graph/place_evidence", entity_id=answer_id, keys=keys)
    if not rows or not rows[0]["subject"]:
        return None
    if whole:
        return f"the question asks for a {kind}; {answer!r} lies in another place, which may be the {kind}"
    if not rows[0]["object"]:
        return f"the question asks for a {kind}; {answer!r} is a thing in a place, not a place"
    return None


def _common_noun_gap(vocabulary: dict[str, list[str]], kind: str, last_relation_key: str, answer: str) -> str | None:
    """An answer written in lower case is a common noun ("goalkeeper"); when WordNet files it nowhere it
    files the asked kind ("which club": a group or an artifact, never a person or a position), it is
    not one. Silent when the last relation's label names the kind, a synonym or a near hypernym of it
    ("occupation" for "which profession"): the graph says its objects are such things."""
    if kind in _UNTYPED or " " in kind or answer != answer.lower() or not any(ch.isalpha() for ch in answer):
        return None
    lexicon = Lexicon.load()
    if lexicon is None or not lexicon.never_a(answer, kind):
        return None
    phrases = vocabulary.get(last_relation_key) or [last_relation_key]
    if any(word == normalise_label(kind) or lexicon.nouns_related(word, kind) for word in _label_heads(phrases[0])):
        return None
    return f"the question asks for a {kind}; {answer!r} is not one (WordNet files it elsewhere)"


def _label_heads(label: str) -> list[str]:
    """The words a relation's label names its objects by: each alternative's words before its first
    preposition ("position played on team / speciality": "position", "played", "speciality"; the team
    is where the position is played, not what the fact ends at)."""
    out: list[str] = []
    for alternative in label.split("/"):
        for word in _words(alternative):
            if word in PREPOSITIONS:
                break
            out.append(word)
    return out


__all__ = ["TIME_KINDS", "asks_place", "asks_whole_place", "kind_gap", "relations_of_kind"]
