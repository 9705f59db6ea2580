"""A link the question leaves implicit may not lead to a thing of the same kind.

Questions elide links: "the sport X plays" is X's position's sport, "the currency of the city
where X was born" the currency of the city's country. What makes such a reading right is that
the entity the question names cannot have the asked relation itself: a person has no sport of
its own in the graph, a city no currency; the link leads to a thing of another kind that has one.
When the unnamed link leads instead to a thing of the same kind (a fund to a company it invested
in, a holding to the firm it owns: both stated with the same relations of their own, such as
where they are based), the asked relation is one the named entity could have and lacks; the
answer found one link further on is another entity's ("the chief executive of the firm the
holding owns"), not the one asked for.

"The same kind" is read from the graph alone: the two entities share a relation of their own
(a fact read forwards) other than the link and the relation asked. A typing relation (`type`,
`instance of`: kgtool.reason.kinds) is not such a relation, every typed entity has one; what
its facts name is the kind itself: two entities typed alike are of one kind. Only the plan's unnamed hops
are looked at, each followed by the hop that answers a phrase.
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

from kgtool.core.types import CandidateFact
from kgtool.reason.agents.offline.common import OfflinePlan, relation_key
from kgtool.reason.kinds import typing_relation


def _own_relations(facts: Sequence[CandidateFact]) -> set[str]:
    return {relation_key(f) for f in facts
            if f.direction == "out" and f.head_id != f.tail_id and not typing_relation(f.relation or "")}


def _types(facts: Sequence[CandidateFact]) -> set[str]:
    """The ids of the kinds the entity's type facts name."""
    return {f.tail_id for f in facts if f.direction == "out" and typing_relation(f.relation or "")}


def peer_links(plan: OfflinePlan, neighbours: Mapping[str, Sequence[CandidateFact]],
               name_of: Callable[[str], str]) -> list[tuple[str, str]]:
    """(fact id, reason) for each unnamed hop of the plan that links two things of the same kind
    before a hop that answers a phrase (see the module docstring)."""
    out: list[tuple[str, str]] = []
    hops = len(plan.relations)
    if not plan.topic_id or len(plan.explained) != hops or len(plan.entities) != hops:
        return out
    for i in range(hops - 1):
        if plan.explained[i] or not plan.explained[i + 1]:
            continue  # a hop the question names, or one leading to another unnamed hop
        start = plan.topic_id if i == 0 else plan.entities[i - 1]
        end = plan.entities[i]
        if start not in neighbours or end not in neighbours:
            continue
        typed = _types(neighbours[start]) & _types(neighbours[end])
        shared = (_own_relations(neighbours[start]) & _own_relations(neighbours[end])) - {
            plan.relations[i], plan.relations[i + 1]}
        if typed:
            why = f"both are {name_of(min(typed)) or min(typed)!r}"
        elif shared:
            why = f"both have {min(shared).split(':', 1)[-1]!r}"
        else:
            continue
        out.append((plan.facts[i], f"hop {i + 1} goes from {name_of(start) or start} to {name_of(end) or end}, "
                                   f"a thing of the same kind ({why}), by a link the question "
                                   f"does not name: what hop {i + 2} finds is not {name_of(start) or start}'s"))
    return out


__all__ = ["peer_links"]
