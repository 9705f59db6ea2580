"""Hops to the kind of entity the question asks for, when the path stops short of it.

"What currency is used where T was born?" asks for a currency; the phrases read "born", and the
path that explains them ends at a city. The question's word names a kind ("currency"), and the
graph names relations after kinds (kgtool.reason.kinds: the objects of `currency` facts are
currencies). When the path's entity is of no such kind, and a relation naming the kind leads on
from it, straight or past one link the question leaves implicit (the city's country), the path
goes on to the entity of that kind. A place asked by a noun no relation is named after ("in what
city ...") is reached the same way through the relation that puts the entity in a place ("located
in"), when the entity is a thing somewhere and no place (kgtool.reason.kinds.puts_in_place).
Nothing is added when the path already stands on an entity of the kind, or when no relation
within those hops names it: the graph then cannot tell, and the kind is only the hint it always
was (StructuredSearch._type_hops, the status rule's check).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from kgtool.core.types import CandidateFact
from kgtool.reason.agents.offline.common import _endpoints, relation_key
from kgtool.reason.agents.offline.structured_path import StructuredPath
from kgtool.reason.answer_kind import _UNTYPED, asks_place, asks_whole_place
from kgtool.reason.kinds import is_kind, label_kind, puts_in_place
from kgtool.reason.question import QuestionReading

if TYPE_CHECKING:
    from kgtool.reason.agents.offline.structured_scoring import HopScoring

# the question words' own kinds: the graph names no relation after them


def kind_word(reading: QuestionReading, type_text: str | None) -> str | None:
    """The noun the question asks the answer to be ("currency"), if it names a kind at all."""
    word = type_text if type_text and type_text not in _UNTYPED else reading.answer_type
    if not word or word in _UNTYPED or len(word.split()) > 2:
        return None
    return word


def kind_hops(search: HopScoring, finished: list[StructuredPath], reading: QuestionReading,
              type_text: str | None) -> list[StructuredPath]:
    """The finished paths, those of the best that stop short of the asked kind carried on to it (see
    the module docstring). A carried path keeps its reading's score, less the implicit link's cost:
    it loses to a reading that reaches the kind by itself as well, the path it replaces would have."""
    word = kind_word(reading, type_text)
    if word is None:
        return finished
    s = search.s
    top = [p for p in sorted(finished, key=lambda p: p.total, reverse=True)[: s.type_hop_paths] if p.hops]
    if not top:
        return finished
    pools = search.neighbours([p.entity_id for p in top])
    out: list[StructuredPath] = []
    carried: set[int] = set()
    for path in top:
        pool = pools.get(path.entity_id, [])
        if is_kind(word, search._kinds(pool)):
            continue
        names = [f for f in pool if _names_kind(search, f, word, path)] or _place_links(search, pool, word, path)
        if names:
            out += [_kind_step(search, path, f) for f in names[: s.fanout]]
            carried.add(id(path))
            continue
        if path.silent >= s.max_silent or path.hops[-1].first == path.hops[-1].last:
            continue  # two unnamed links in a row would let the path drift anywhere
        links = _links(search, pool, path)
        far = search.neighbours([_endpoints(f)[1][0] for f in links])
        for link in links:
            via = search._step(path, link, relation_key(link), path.consumed, path.consumed, (), -s.silent_cost)
            named = [f for f in far.get(via.entity_id, []) if _names_kind(search, f, word, via)]
            out += [_kind_step(search, via, f) for f in named[: s.fanout]]
            carried.update([id(path)] if named else [])
    return [p for p in finished if id(p) not in carried] + out


def _names_kind(search: HopScoring, fact: CandidateFact, word: str, path: StructuredPath) -> bool:
    """A stated fact read forwards whose label is the kind's word alone ("currency"): its object is one. A
    label that only ends in the word ("parent company") names a relation between two of the kind, and
    the entity before it may well be one already."""
    if fact.direction != "out" or fact.head_id == fact.tail_id or fact.tail_id in path.visited:
        return False
    if search.prior(fact) < 1.0:
        return False  # as for type hops: a kind word does not take a passage-read link
    label = search.profile_of(fact).label or fact.relation
    kind = label_kind(label)
    return kind is not None and len(label.replace("_", " ").split()) == 1 and is_kind(word, frozenset([kind]))


def _place_links(search: HopScoring, pool: list[CandidateFact], word: str, path: StructuredPath
                 ) -> list[CandidateFact]:
    """For a place asked by a noun no relation is named after ("in what city is the observatory ..."):
    the facts putting the path's entity in a place, read forwards, when the entity is a thing somewhere
    and no place by the graph's relations said with "in" (kgtool.reason.kinds.puts_in_place); for a whole
    a people holds ("in which country was X born": kgtool.reason.answer_kind.asks_whole_place), also
    when the entity is a place inside another place, the birthplace a city in its country."""
    def label(fact: CandidateFact) -> str:
        return search.profile_of(fact).label or fact.relation

    placed = [f for f in pool if puts_in_place(label(f))]
    if not placed or not asks_place(word):
        return []
    if any(f.direction == "in" for f in placed) and not asks_whole_place(word):
        return []
    placed = [f for f in placed if f.direction == "out"]
    return [f for f in placed if f.tail_id not in path.visited and f.head_id != f.tail_id and search.prior(f) >= 1.0]


def _links(search: HopScoring, pool: list[CandidateFact], path: StructuredPath) -> list[CandidateFact]:
    """One stated fact per relation leading on from the path, read forwards (the implicit link's
    candidates: a property of the entity, as a city's country is)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for fact in sorted(pool, key=search.prior, reverse=True):
        group = (relation_key(fact), fact.direction)
        if group in seen or fact.head_id == fact.tail_id or _endpoints(fact)[1][0] in path.visited:
            continue
        if fact.direction != "out":
            continue  # read backwards a link reaches one of the many things related to the entity, not its own
        if search.prior(fact) < 1.0:
            continue
        seen.add(group)
        out.append(fact)
    return out


def _kind_step(search: HopScoring, path: StructuredPath, fact: CandidateFact) -> StructuredPath:
    """The hop whose relation names the kind: it reads no phrase, so it neither costs nor earns (the
    path it carries on is dropped), and it takes the type hint's bonus for a relation fitting it outright."""
    s = search.s
    step = search._step(path, fact, relation_key(fact), path.consumed, path.consumed, (), 0.0)
    return StructuredPath(step.hops, step.entity_id, step.visited, step.consumed, step.score, path.silent,
                          s.type_weight)
