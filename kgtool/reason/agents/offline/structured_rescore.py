"""`StructuredSearch.rescore`: a given chain of facts read the way the structured search reads its own paths.

Kept apart from the search's beam (structured.py) because it is a second reading of the same
scores, one hop at a time over a fixed chain, used only where two plans are weighed
(plan_structured.weigh).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from kgtool.core.types import CandidateFact
from kgtool.reason.agents.offline.common import _endpoints, relation_key
from kgtool.reason.kinds import is_kind
from kgtool.reason.question import QuestionReading

if TYPE_CHECKING:
    from kgtool.reason.agents.offline.structured_scoring import HopScoring


def rescore(search: HopScoring, reading: QuestionReading, facts: Sequence[CandidateFact]
            ) -> tuple[float | None, int]:
    """What `search` would score a given chain of facts at (its best reading of the phrases in
    order: the same fits, costs, split hops, soft ending and type bonus or type hop), and how
    many required phrases that reading leaves unexplained (fit below `explains`, or no hop at
    all). The score is None when the chain cannot read every phrase in order; the count is then
    that of the reading that explains most. Lets a path another search found be weighed on
    this search's own scale."""
    segments = list(reading.required)
    n = len(segments)
    if not n or not facts:
        return None, n
    texts = search._texts(reading)
    search.read_roles(reading)
    type_text = search._type_text(reading)
    search.scorer.prepare(search.wanted(reading))
    soft_end = n > 1 and segments[-1].soft
    profs = [search.profile_of(f) for f in facts]
    factors = [search.s.reverse_factor if f.direction == "in" else 1.0 for f in facts]

    kinds: dict[int, frozenset[str]] = {}

    def kinds_at(h: int) -> frozenset[str]:  # of the entity hop h starts from, as _extend reads it
        if h not in kinds:
            start = _endpoints(facts[h])[0][0]
            kinds[h] = search._kinds(search.neighbours([start]).get(start, []))
        return kinds[h]
    # (consumed, last hop silent, silent hops, last hop explained one phrase alone) ->
    # (score, phrases explained) after each hop
    best: dict[tuple[int, bool, int, bool], tuple[float, int]] = {(0, False, 0, False): (0.0, 0)}
    for h, fact in enumerate(facts):
        grown: dict[tuple[int, bool, int, bool], tuple[float, int]] = {}

        def put(key, value):
            if value > grown.get(key, (float("-inf"), 0)):
                grown[key] = value
        for (c, last_silent, silent, single), (score, told) in best.items():
            for j in range(c + 1, min(n, c + search.s.max_merge) + 1):
                if (c, j) not in texts:
                    continue
                fits, gain = search._group(texts[(c, j)], profs[h], factors[h], (c, j), facts[h].direction)
                if gain == float("-inf"):
                    continue
                put((j, False, silent, j == c + 1), (score + (gain * search.prior(fact) if gain > 0 else gain),
                                                     told + sum(f >= search.s.explains for f in fits)))
            if single and relation_key(fact) != relation_key(facts[h - 1]):
                fit = search._split_fit(texts[(c - 1, c)][1], profs[h - 1], profs[h], factors[h], kinds_at(h))
                if fit >= search.s.split_fit and search.prior(fact) >= 1.0:
                    put((c, False, silent, False), (score + fit - search.s.hop_cost - search.s.split_cost, told))
            if c < n and not last_silent and silent < search.s.max_silent:
                put((c, True, silent + 1, False), (score - search.s.silent_cost, told))
            if (c == n and h == len(facts) - 1 and type_text and not last_silent and search.prior(fact) >= 1.0
                    and fact.direction == "out" and not is_kind(type_text, kinds_at(h))):
                fit = search.scorer.score(type_text, profs[h])
                if fit >= search.s.type_hop_fit:
                    put((c, True, silent, False),
                        (score + fit - search.s.hop_cost + search.s.type_weight * fit, told))
        best = grown
        if not best:
            return None, n
    totals = []
    for (c, last_silent, _silent, _single), (score, _told) in best.items():
        if c == n and last_silent:
            totals.append(score)  # ended on a type hop, its bonus included
        elif c == n:
            totals.append(score + search._type_bonus(facts[-1], type_text))
        elif soft_end and c == n - 1 and not last_silent:
            totals.append(score - search.s.soft_cost + search._type_bonus(facts[-1], type_text))
    told = max(t for _score, t in best.values())
    return (max(totals) if totals else None), n - told
