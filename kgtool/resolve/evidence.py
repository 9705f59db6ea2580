"""Precision-first scoring of a candidate pair: Fellegi-Sunter agreement weights.

Record linkage (Fellegi and Sunter; Splink, dedupe) splits resolution in three steps:
candidate generation (blocking: kgtool.resolve.resolvers, by shared ids, names and
RapidFuzz similarity), scoring (here) and a decision (a threshold on the score, applied by
kgtool.resolve.plan). Each comparison of two entities lands on a level, and each level
carries a weight: log2 of how much likelier that agreement is between two records of one
thing than between two things (m/u). The weights add up.

Comparisons and their weights (bits):
- external id: the same Wikidata id or IRI                                   +20
- alias: one's name is stated in the data as the other's alias                +9
- name: the same normalised name +4; RapidFuzz >= .95 +3, >= .90 +2, >= .85 +1;
  an alias in common only +1
- kind: both typed by the parser, the same kind                               +1
- neighbours: each fact both state with the same relation, direction and other end,
  log2(0.9 / u), u the share of entities stating it (Splink's term-frequency
  adjustment: sharing the continent says little, sharing the capital much), at most
  8 each and 12 in all
- relation profile: half or more of the relations in common +0.5; none in common -1 (two sources
  often tell different things of one entity)

The decision (`decide`): a merge needs no contradiction, at least MIN_EVIDENCE bits
beyond the name (id, alias, kind, neighbours, profile), not resting on one neighbour alone
unless the relations are compatible (`corroborated`), and MERGE_WEIGHT bits in all, so a
name match alone, however exact, never merges. Pairs from SUGGEST_WEIGHT up are kept as
suggestions for a person.

Contradictions (`Context.guard`): kgtool.resolve.base.guard (ids, a fact between them,
names differing by a number, direction word, initial, ...), a relation that is one-valued
in the data (nearly every entity stating it states one value) with different values on the
two sides, and a merge a person undid (a rejection).
"""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterable

from kgtool.core.text import normalize
from kgtool.resolve.base import EntityView, guard, stated_alias
from kgtool.resolve.names import fold

MERGE_WEIGHT = 9.0
MIN_EVIDENCE = 4.0
SUGGEST_WEIGHT = 3.0

ID_WEIGHT, ALIAS_WEIGHT, KIND_WEIGHT = 20.0, 9.0, 1.0
NAME_LEVELS = ((1.0, 4.0), (0.95, 3.0), (0.90, 2.0), (0.85, 1.0))  # (similarity at least, bits)
SHARED_ALIAS_WEIGHT = 1.0
M_NEIGHBOUR, NEIGHBOUR_CAP, NEIGHBOURS_CAP = 0.9, 8.0, 12.0
PROFILE_AGREE, PROFILE_DISJOINT = 0.5, -1.0
# a relation is one-valued when at least this share of the (at least ONE_VALUED_SUPPORT) entities
# stating it state one value
ONE_VALUED_SHARE, ONE_VALUED_SUPPORT = 0.9, 3
SIMILAR_VALUE = 0.9  # two values this alike (RapidFuzz) may be one thing written two ways


def neighbour_key(link) -> tuple[str, bool, str]:
    return (link.relation, link.outgoing, link.other_name or link.other_id)


@dataclass
class Evidence:
    """One pair's comparisons: the bits for and against, and the reasons."""

    name: float = 0.0
    beyond: float = 0.0  # bits from anything but the name
    anchored: bool = False  # an id or a stated alias says they are one
    shared: int = 0  # neighbours in common
    overlap: float = 0.0  # of the relation profiles (Jaccard)
    found: list[str] = field(default_factory=list)
    against: list[str] = field(default_factory=list)

    @property
    def weight(self) -> float:
        return round(self.name + self.beyond, 3)

    def add(self, bits: float, why: str, *, name: bool = False) -> None:
        if name:
            self.name += bits
        else:
            self.beyond += bits
        (self.found if bits > 0 else self.against).append(f"{why} ({bits:+.1f})")

    def reason(self) -> str:
        return (f"{self.weight:.1f} bits; for: {'; '.join(self.found) or 'nothing'}; "
                f"against: {'; '.join(self.against) or 'nothing'}")


class Context:
    """What scoring needs from the whole store: how common each neighbour is, which relations are
    one-valued, and which pairs a person kept apart."""

    def __init__(self, views: Iterable[EntityView], rejected: Iterable[tuple[str, str]] = (),
                 similarity: Callable[[str, str], float] | None = None):
        views = list(views)
        self.size = max(1, len(views))
        self.frequency: Counter = Counter()
        values: dict[tuple[str, bool], list[int]] = defaultdict(list)
        for v in views:
            keys = {neighbour_key(link) for link in v.links}
            self.frequency.update(keys)
            per: Counter = Counter((r, out) for r, out, _o in keys)
            for slot, n in per.items():
                values[slot].append(n)
        self.one_valued = {slot for slot, counts in values.items() if len(counts) >= ONE_VALUED_SUPPORT
                           and sum(1 for n in counts if n == 1) / len(counts) >= ONE_VALUED_SHARE}
        self.rejected = {tuple(sorted(p)) for p in rejected}
        self._keys: dict[str, frozenset] = {}
        self.similarity = similarity or _ratio

    def guard(self, a: EntityView, b: EntityView) -> str | None:
        """Why a and b must not merge: a person undid their merge, base.guard, or a one-valued relation
        the two state with different values."""
        if tuple(sorted((a.id, b.id))) in self.rejected:
            return "a person undid this merge (kgtool resolve --undo): kept apart"
        why = guard(a, b)
        if why or (a.wikidata and a.wikidata == b.wikidata):
            return why
        listed = side_by_side(a, b)
        if listed:
            return listed
        for relation, outgoing in sorted(self.one_valued):
            va = {link.other_name for link in a.links if link.relation == relation and link.outgoing == outgoing}
            vb = {link.other_name for link in b.links if link.relation == relation and link.outgoing == outgoing}
            if va and vb and not va & vb and not any(self.similarity(x, y) >= SIMILAR_VALUE for x in va for y in vb):
                side = "" if outgoing else " (of)"
                return f"one-valued {relation}{side} differs ({sorted(va)[0]} / {sorted(vb)[0]})"
        return None

    def score(self, a: EntityView, b: EntityView, name_similarity: float) -> Evidence:
        ev = Evidence()
        if a.wikidata and a.wikidata == b.wikidata:
            ev.add(ID_WEIGHT, f"same Wikidata id {a.wikidata}")
            ev.anchored = True
        elif a.iris & b.iris:
            ev.add(ID_WEIGHT, f"same IRI {sorted(a.iris & b.iris)[0]}")
            ev.anchored = True
        na, nb = normalize(a.name), normalize(b.name)
        if stated_alias(a, b) and na != nb:
            ev.anchored = True
            ev.add(ALIAS_WEIGHT, f"{(a.name if na in b.keys else b.name)!r} is stated as an alias of the other")
        if na and na == nb:
            ev.add(NAME_LEVELS[0][1], f"same name {a.name!r}", name=True)
        elif na and fold(a.name) == fold(b.name):
            ev.add(NAME_LEVELS[0][1], "same name but for accents", name=True)
        else:
            bits = next((w for level, w in NAME_LEVELS[1:] if name_similarity >= level), 0.0)
            if bits:
                ev.add(bits, f"names alike {name_similarity:.2f}", name=True)
            elif a.keys & b.keys:
                ev.add(SHARED_ALIAS_WEIGHT, f"an alias in common {sorted(a.keys & b.keys)[0]!r}", name=True)
        if a.kind and b.kind and normalize(a.kind) == normalize(b.kind):
            ev.add(KIND_WEIGHT, f"same kind {a.kind}")
        self._neighbours(a, b, ev)
        ra, rb = a.relations(), b.relations()
        if ra and rb:
            overlap = ev.overlap = len(ra & rb) / len(ra | rb)
            if not overlap:
                ev.add(PROFILE_DISJOINT, "their facts share no relation")
            elif overlap >= 0.5:
                ev.add(PROFILE_AGREE, "compatible relations")
        elif not a.links and not b.links:
            ev.against.append("no facts to compare")
        return ev

    def keys(self, view: EntityView) -> frozenset:
        found = self._keys.get(view.id)
        if found is None:
            found = self._keys[view.id] = frozenset(neighbour_key(link) for link in view.links)
        return found

    def _neighbours(self, a: EntityView, b: EntityView, ev: Evidence) -> None:
        shared = self.keys(a) & self.keys(b)
        total = 0.0
        if not shared:
            return
        for key in sorted(shared, key=lambda k: self.frequency[k]):
            u = max(self.frequency[key], 2) / self.size
            bits = min(NEIGHBOUR_CAP, math.log2(M_NEIGHBOUR / u)) if u < M_NEIGHBOUR else 0.0
            bits = min(bits, NEIGHBOURS_CAP - total)
            if bits <= 0:
                continue
            total += bits
            ev.shared += 1
            relation, outgoing, other = key
            ev.add(bits, f"both {relation} {other}" if outgoing else f"both are {relation} of {other}")


def side_by_side(a: EntityView, b: EntityView) -> str | None:
    """Two values one fact file lists of one entity's relation are two things: a file names a country's
    provinces once each, so "East X" and "West X" (in any language) or a county and the town it is named
    after, listed side by side, are not one written twice. Names equal but for accents and case are let
    through (one file joined from two sources writes one place both ways)."""
    if fold(a.name) == fold(b.name):
        return None
    values = {(link.relation, link.other_id): link.sources for link in a.links if not link.outgoing and link.sources}
    for link in b.links:
        both = values.get((link.relation, link.other_id)) if not link.outgoing else None
        if both and both & link.sources:
            return f"one file lists both as {link.relation} of {link.other_name}: two values, not one"
    return None


def short_reason(reason: str) -> str:
    """The agreements of an Evidence.reason without their bits ("same name 'x'; both capital y"); another
    resolver's reason as it is."""
    if "; for: " not in reason:
        return reason
    found = reason.split("; for: ", 1)[1].split("; against: ", 1)[0]
    return re.sub(r" \([+-][0-9.]+\)", "", found)


def corroborated(ev: Evidence) -> bool:
    """Agreement beyond the name that does not rest on one neighbour alone: an id or a stated alias, two
    neighbours in common, or one with compatible relations. A city and the province named after it
    share their country, and little else: what they state of themselves differs."""
    return ev.anchored or ev.shared >= 2 or (ev.shared == 1 and ev.overlap >= 0.5) or not ev.shared


def decide(ev: Evidence) -> bool:
    """Merge only on evidence beyond the name, corroborated, and enough of it in all."""
    return ev.beyond >= MIN_EVIDENCE and ev.weight >= MERGE_WEIGHT and corroborated(ev)


def _ratio(x: str, y: str) -> float:
    from rapidfuzz import fuzz

    return max(fuzz.ratio(x, y), fuzz.token_set_ratio(x, y)) / 100.0
