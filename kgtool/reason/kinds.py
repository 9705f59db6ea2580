"""What kind of thing an entity is, by the graph's own relations, for the structured search.

Most graphs carry no type facts, but many name relations after what their object is: the object
of a `country` fact is a country, that of an `official language` fact a language, that of a
`country of citizenship` fact a country. The kind is the label's head noun: the word before "of"
in a noun with its complement, else the last word. A label that ends in a preposition ("born in",
"citizen of", "founded by") names what its subject does, not what its object is, and says nothing.

Some graphs do carry type facts: RDF's `rdf:type` (read as `type`), Wikidata's `instance of`, the
`is a` of many ontologies. Such a fact names its subject's kind outright by its object's name
(`T --type--> Company`: a company), and counts as the same positive evidence.

The search uses this where the question names the answer's kind ("Which country's currency is
...", "the country T is a citizen of"): a hop named only by that kind word is not added to a path
that already stands on an entity of that kind. Only positive evidence counts: an entity no
relation names the kind of is of no known kind, never of another one.
"""
from __future__ import annotations

from typing import Callable, Iterable

from kgtool.core.text import light_stem, normalise_label
from kgtool.core.types import CandidateFact
from kgtool.reason.question import FUNCTION_WORDS


def label_kind(label: str) -> str | None:
    """The stem of the noun a relation label names its object by, or None ("born in": none)."""
    words = normalise_label(label.replace("_", " ")).split()
    if not words or words[-1] in FUNCTION_WORDS:
        return None
    head = words[words.index("of") - 1] if "of" in words[1:] else words[-1]
    return None if head in FUNCTION_WORDS else light_stem(head)


# the preposition that puts a thing in a place: "located in", "based in", "born in" (not "at": one is
# "educated at" a school, which is no place a question's "which city" asks for)
PLACE_PREPOSITION = "in"


def puts_in_place(label: str) -> bool:
    """Does the relation's label put its subject in a place ("located in", "BASED_IN")? Its objects
    are then places, its subjects things that are somewhere."""
    words = normalise_label(label.replace("_", " ")).split()
    return len(words) >= 2 and words[-1] == PLACE_PREPOSITION


# the labels of the standard typing relations (rdf:type, Wikidata's P31, the ontologies' "is a"): a fact
# of one names its subject's kind by its object
TYPING_LABELS = frozenset({"type", "rdf type", "instance of", "is a", "isa"})


def typing_relation(label: str) -> bool:
    """Does the relation say what kind of thing its subject is (`type`, `instance of`, `is a`)?"""
    return normalise_label(label.replace("_", " ").replace(":", " ")) in TYPING_LABELS


def type_kind(name: str) -> str | None:
    """The kind a type fact's object names ("Company", "public company": company): its last word's stem."""
    words = normalise_label(name.replace("_", " ")).split()
    return light_stem(words[-1]) if words and words[-1] not in FUNCTION_WORDS else None


def kinds_of(pool: Iterable[CandidateFact], label_of: Callable[[CandidateFact], str]) -> frozenset[str]:
    """The kinds an entity is, from its neighbourhood `pool`: the label kinds of the facts ending at it,
    and the kinds its own type facts name."""
    kinds = {label_kind(label_of(f)) for f in pool if f.direction == "in"}
    kinds |= {type_kind(f.tail) for f in pool if f.direction == "out" and typing_relation(label_of(f))}
    return frozenset(k for k in kinds if k)


def is_kind(word: str, kinds: frozenset[str]) -> bool:
    """Does the (type) word name one of the kinds? For a phrase, its last word is the noun."""
    words = normalise_label(word).split()
    return bool(words) and light_stem(words[-1]) in kinds


__all__ = ["PLACE_PREPOSITION", "TYPING_LABELS", "is_kind", "kinds_of", "label_kind", "puts_in_place", "type_kind",
           "typing_relation"]
