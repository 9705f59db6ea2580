"""What resolvers compare and what they propose.

An `EntityView` is what resolution knows of one entity: its names, external ids
(Wikidata Q-id, IRIs given as aliases), kind when a parser typed it, and its
relation profile (the relations it takes part in and the entities at their other
end). A resolver scores pairs of views; `guard` says why two views must never merge
whatever their names say (different Wikidata ids, a fact between them, disagreeing
dates), so a father and son who share a name, or two places called the same, stay
apart under every resolver.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Iterable, Mapping

from kgtool.core.text import normalize
from kgtool.resolve.names import name_contradiction

_QID = re.compile(r"^Q[1-9][0-9]*$")
_WIKIDATA_IRI = re.compile(r"^https?://www\.wikidata\.org/(?:entity|wiki)/(Q[1-9][0-9]*)$")
_DIGIT = re.compile(r"[0-9]")


def _is_iri(text: str) -> bool:
    return text.startswith(("http://", "https://", "urn:")) and not any(c.isspace() for c in text)


@dataclass(frozen=True)
class Link:
    """One fact of an entity seen from it: the relation, which end it is, and the other end."""

    relation: str  # normalised relation label
    outgoing: bool  # the entity is the fact's head
    other_id: str
    other_name: str  # normalised name of the other end
    sources: frozenset[str] = frozenset()  # the fact files (Source ids) that state the fact


@dataclass(frozen=True)
class EntityView:
    id: str
    name: str
    aliases: tuple[str, ...] = ()
    qid: str | None = None
    kind: str | None = None
    links: tuple[Link, ...] = ()

    @cached_property
    def names(self) -> list[str]:
        """Primary name first, then the aliases, each once."""
        return list(dict.fromkeys([self.name, *self.aliases]))

    @cached_property
    def keys(self) -> set[str]:
        """Normalised names and aliases (the exact resolver's keys)."""
        return {k for k in (normalize(n) for n in self.names if isinstance(n, str)) if k}

    @cached_property
    def wikidata(self) -> str | None:
        """The Wikidata id: the qid, the id itself, or a Wikidata IRI among the aliases."""
        if self.qid and _QID.match(self.qid):
            return self.qid
        if _QID.match(self.id):
            return self.id
        for alias in self.aliases:
            m = _WIKIDATA_IRI.match(alias)
            if m:
                return m.group(1)
        return None

    @cached_property
    def iris(self) -> frozenset[str]:
        return frozenset(a for a in self.names if isinstance(a, str) and _is_iri(a))

    @property
    def degree(self) -> int:
        return len(self.links)

    @cached_property
    def has_external_id(self) -> bool:
        return self.wikidata is not None or bool(self.iris)

    def relations(self) -> set[tuple[str, bool]]:
        return self._relations

    @cached_property
    def _relations(self) -> set[tuple[str, bool]]:
        return {(link.relation, link.outgoing) for link in self.links}

    def values(self, relation: str) -> set[str]:
        """Names at the other end of the entity's outgoing facts of `relation`."""
        return {link.other_name for link in self.links if link.outgoing and link.relation == relation}

    @classmethod
    def from_mapping(cls, row: Mapping[str, Any]) -> "EntityView":
        """A view from a stored entity row or a labelled pair's side.

        `links` are {relation, outgoing, other_id, other_name, sources?}; a side of a pair file
        may give `facts: [[relation, object name], ...]` instead (outgoing, the object
        named by its normalised name)."""
        links = [Link(normalize(l["relation"] or ""), bool(l["outgoing"]), l["other_id"] or "",
                      normalize(l["other_name"] or ""), frozenset(l.get("sources") or ()))
                 for l in row.get("links") or ()]
        for relation, obj in row.get("facts") or ():
            links.append(Link(normalize(relation), True, "name:" + normalize(obj), normalize(obj)))
        return cls(id=row["id"], name=row["name"] or row["id"], aliases=tuple(row.get("aliases") or ()),
                   qid=row.get("qid"), kind=row.get("kind"), links=tuple(links))


@dataclass(frozen=True)
class Candidate:
    """A proposed merge of two entities: who proposed it, how sure it is, and why."""

    a: str
    b: str
    score: float
    resolver: str
    reason: str
    refused: bool = False  # a guard or a rejection forbids it: never a suggestion

    def pair(self) -> tuple[str, str]:
        return (self.a, self.b) if self.a < self.b else (self.b, self.a)


def guard(a: EntityView, b: EntityView) -> str | None:
    """Why `a` and `b` must stay apart whatever their names say, or None.

    - both carry a Wikidata id (or IRIs) and they differ;
    - a fact joins them (a person and the parent named after them);
    - either has a fact that loops to itself: a file that names two things alike
      (father and son) made one node of them, and merging it would graft both on one;
    - both state a date or number for one relation and the values differ (a birth
      year, a population), or two or more relations both state have other values and
      none agrees: the signature of two things that share a name;
    - the names differ by a number, ordinal, regnal numeral, direction word, middle name or
      initial, or one more letter (kgtool.resolve.names), unless one is an alias of the other;
    - both are typed and the types differ.
    """
    qa, qb = a.wikidata, b.wikidata
    if qa and qb and qa != qb:
        return f"different Wikidata ids ({qa}, {qb})"
    if a.iris and b.iris and not (a.iris & b.iris):
        return "different IRIs"
    if any(link.other_id == b.id for link in a.links) or any(link.other_id == a.id for link in b.links):
        return "a fact joins them"
    for view in (a, b):
        if any(link.other_id == view.id for link in view.links):
            return f"{view.name!r} has a fact about itself (two things under one name?)"
    if not stated_alias(a, b) and not (qa and qa == qb) and not (a.iris & b.iris):
        why = name_contradiction(a.name, b.name)
        if why:
            return why
    if a.kind and b.kind and _kind_family(a.kind) != _kind_family(b.kind):
        return f"different kinds ({a.kind}, {b.kind})"
    shared = {r for r, out in a.relations() if out} & {r for r, out in b.relations() if out}
    agree, differ = 0, []
    for relation in sorted(shared):
        va, vb = a.values(relation), b.values(relation)
        if va & vb:
            agree += 1
            continue
        da, db = {v for v in va if _DIGIT.search(v)}, {v for v in vb if _DIGIT.search(v)}
        if da and db:
            return f"different {relation} ({sorted(da)[0]}, {sorted(db)[0]})"
        differ.append(relation)
    if len(differ) >= 2 and not agree:
        # every relation both state disagrees, and there are several (a country and a region):
        # two things with one name. A single disagreement is as likely a conflict between
        # sources (a file and an edit about one slot), which the conflict policy settles.
        return f"their facts disagree on {', '.join(differ)} and agree on nothing"
    return None


# a quoted title and a capitalised name are both names to the document parser (kgtool.ingest.doc_extract)
_KIND_FAMILIES = {"quoted": "name"}


def _kind_family(kind: str) -> str:
    kind = normalize(kind)
    return _KIND_FAMILIES.get(kind, kind)


def stated_alias(a: EntityView, b: EntityView) -> bool:
    """The data says the two are one: one's name is among the other's names or aliases."""
    na, nb = normalize(a.name), normalize(b.name)
    return bool((na and na in b.keys) or (nb and nb in a.keys))


def profile_agreement(a: EntityView, b: EntityView) -> float:
    """Jaccard overlap of the two relation profiles (1.0 when either has none to compare)."""
    ra, rb = a.relations(), b.relations()
    if not ra or not rb:
        return 1.0
    return len(ra & rb) / len(ra | rb)


def survivor_rank(view: EntityView) -> tuple:
    """Which entity of a merge keeps its id: one with an external id, then the better
    connected, then the smaller id (so every process picks the same)."""
    return (0 if view.has_external_id else 1, -view.degree, view.id)


@dataclass
class Proposal:
    """What a resolver pass proposes: merges that pass, and near misses kept for analysts."""

    merges: list[Candidate] = field(default_factory=list)
    below: list[Candidate] = field(default_factory=list)  # under the threshold, refused by a guard, or ambiguous


def views_by_id(views: Iterable[EntityView]) -> dict[str, EntityView]:
    return {v.id: v for v in views}
