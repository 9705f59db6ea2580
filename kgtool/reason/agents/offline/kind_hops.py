"""Hops to the kind of entity the question asks for, when the path stops short of it.

"What currency is used where T was born?" asks for a currency; the phrases read "born", and the
path that explains them ends at a city. The question's word names a kind ("currency"), and the
graph names relations after kinds (kgtool.reason.kinds: the objects of `currency` facts are
currencies). When the path's entity is of no such kind, and a relation naming the kind leads on
from it, straight or past one link the question leaves implicit (the city's country), the path
goes on to the entity of that kind. Nothing is added when the path already stands on an entity
of the kind, or when no relation within those hops names it: the graph then cannot tell, and
the kind is only the hint it always was (StructuredSearch._type_hops, the status rule's check).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from kgtool.core.types import CandidateFact
from kgtool.reason.agents.offline.common import _endpoints, relation_key
from kgtool.reason.kinds import is_kind, label_kind
from kgtool.reason.question import QuestionReading

if TYPE_CHECKING:
    from kgtool.reason.agents.offline.structured import StructuredPath, StructuredSearch

# the question words' own kinds: the graph names no relation after them
_UNTYPED = frozenset({"person", "place", "time"})


def kind_word(reading: QuestionReading, type_text: str | None) -> str | None:
    """The noun the question asks the answer to be ("currency"), if it names a kind at all."""
    word = type_text if type_text and type_text not in _UNTYPED else reading.answer_type
    if not word or word in _UNTYPED or len(word.split()) > 2:
        return None
    return word


def kind_hops(search: StructuredSearch, finished: list[StructuredPath], reading: QuestionReading,
              type_text: str | None) -> list[StructuredPath]:
    """The best finished paths carried on to an entity of the asked kind (see the module docstring)."""
    word = kind_word(reading, type_text)
    if word is None:
        return []
    s = search.s
    top = [p for p in sorted(finished, key=lambda p: p.total, reverse=True)[: s.type_hop_paths] if p.hops]
    if not top:
        return []
    pools = search.neighbours([p.entity_id for p in top])
    out: list[StructuredPath] = []
    for path in top:
        pool = pools.get(path.entity_id, [])
        if is_kind(word, search._kinds(pool)):
            continue
        names = [f for f in pool if _names_kind(search, f, word, path)]
        if names:
            out += [_kind_step(search, path, f) for f in names[: s.fanout]]
            continue
        if path.silent >= s.max_silent or path.hops[-1].first == path.hops[-1].last:
            continue  # two unnamed links in a row would let the path drift anywhere
        links = _links(search, pool, path)
        far = search.neighbours([_endpoints(f)[1][0] for f in links])
        for link in links:
            via = search._step(path, link, relation_key(link), path.consumed, path.consumed, (), -s.silent_cost)
            named = [f for f in far.get(via.entity_id, []) if _names_kind(search, f, word, via)]
            out += [_kind_step(search, via, f) for f in named[: s.fanout]]
    return out


def _names_kind(search: StructuredSearch, fact: CandidateFact, word: str, path: StructuredPath) -> bool:
    """A stated fact read forwards whose label names the kind: its object is one."""
    if fact.direction != "out" or fact.head_id == fact.tail_id or fact.tail_id in path.visited:
        return False
    if search.prior(fact) < 1.0:
        return False  # as for type hops: a kind word does not take a passage-read link
    kind = label_kind(search.profile_of(fact).label or fact.relation)
    return kind is not None and is_kind(word, frozenset([kind]))


def _links(search: StructuredSearch, pool: list[CandidateFact], path: StructuredPath) -> list[CandidateFact]:
    """One stated fact per relation and direction leading on from the path (the implicit link's candidates)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for fact in sorted(pool, key=search.prior, reverse=True):
        group = (relation_key(fact), fact.direction)
        if group in seen or fact.head_id == fact.tail_id or _endpoints(fact)[1][0] in path.visited:
            continue
        if search.prior(fact) < 1.0:
            continue
        seen.add(group)
        out.append(fact)
    return out


def _kind_step(search: StructuredSearch, path: StructuredPath, fact: CandidateFact) -> StructuredPath:
    """The hop whose relation names the kind: scored as a type hop that fits its word outright."""
    from kgtool.reason.agents.offline.structured import StructuredPath

    s = search.s
    step = search._step(path, fact, relation_key(fact), path.consumed, path.consumed, (), 1.0 - s.hop_cost)
    return StructuredPath(step.hops, step.entity_id, step.visited, step.consumed, step.score, path.silent,
                          s.type_weight)
