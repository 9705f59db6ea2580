"""From scored pairs to a merge plan: which entity absorbs which, in what order.

Pairs are taken best first and joined into clusters (union-find). A pair joins two
clusters only when it reaches its resolver's threshold, no guard forbids it
(kgtool.resolve.base.guard, checked between every member of the two clusters), the
two clusters do not carry different Wikidata ids, and it is not ambiguous: when an
entity without an external id matches entities of two different identified clusters
equally well, it is left alone. Each cluster keeps the id of its best-ranked member
(survivor_rank); every other member is one merge into it, carrying the score and
resolver of the pair that brought it in.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from kgtool.core.text import normalize
from kgtool.resolve.base import Candidate, EntityView, Proposal, guard, survivor_rank
from kgtool.resolve.resolvers import Resolver

AMBIGUITY_MARGIN = 0.02


def propose(views: Iterable[EntityView], resolvers: list[Resolver], *, focus: set[str] | None = None,
            rejected: Iterable[tuple[str, str]] = ()) -> Proposal:
    """Pairs from every resolver, then the plan. `rejected`: pairs of ids a person kept apart (an
    undone merge): never joined, not even through other members of their clusters."""
    views = list(views)
    by_id = {v.id: v for v in views}
    best: dict[tuple[str, str], Candidate] = {}
    thresholds = {r.name: r.min_score for r in resolvers}
    for resolver in resolvers:
        for cand in resolver.pairs(views, focus):
            key = cand.pair()
            # the resolver whose verdict is strongest relative to its own threshold speaks for the pair
            old = best.get(key)
            if old is None or cand.score - thresholds[cand.resolver] > old.score - thresholds[old.resolver]:
                best[key] = cand
    # a resolver that knows the whole store (evidence) guards with what it knows
    check = next((r.guard for r in resolvers if hasattr(r, "guard")), guard)
    kept_apart = {tuple(sorted(p)) for p in rejected}

    def forbid(a: EntityView, b: EntityView) -> str | None:
        if tuple(sorted((a.id, b.id))) in kept_apart:
            return "a person undid this merge (kgtool resolve --undo): kept apart"
        return check(a, b)

    return plan(by_id, list(best.values()), thresholds, forbid)


def plan(by_id: dict[str, EntityView], candidates: list[Candidate], thresholds: dict[str, float],
         forbid=guard) -> Proposal:
    proposal = Proposal()
    passing = [c for c in candidates if c.score >= thresholds[c.resolver]]
    for c in candidates:  # under the threshold: a suggestion unless something forbids the pair
        if c.score < thresholds[c.resolver]:
            why = forbid(by_id[c.a], by_id[c.b])
            proposal.below.append(_with_reason(c, f"refused: {why}", refused=True) if why else c)
    ambiguous = _ambiguous(by_id, passing)
    parent: dict[str, str] = {}
    members: dict[str, list[str]] = defaultdict(list)

    def root(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    joined: dict[str, Candidate] = {}  # absorbed-side entity -> the pair that brought it in
    for cand in sorted(passing, key=lambda c: (-c.score, c.pair())):
        if cand.pair() in ambiguous:
            proposal.below.append(_with_reason(cand, ambiguous[cand.pair()]))
            continue
        ra, rb = root(cand.a), root(cand.b)
        if ra == rb:
            continue
        ca, cb = members.get(ra) or [ra], members.get(rb) or [rb]
        why = next((g for x in ca for y in cb if (g := forbid(by_id[x], by_id[y]))), None)
        if why:
            proposal.below.append(_with_reason(cand, f"refused: {why}", refused=True))
            continue
        # the side whose cluster keeps its id is the better-ranked root
        keep, drop = sorted((ra, rb), key=lambda r: survivor_rank(by_id[r]))
        parent[drop] = keep
        members[keep] = (members.get(keep) or [keep]) + (members.pop(drop, None) or [drop])
        joined[drop] = cand
    # one merge per absorbed member into its final root, best pairs first
    for absorbed, cand in sorted(joined.items(), key=lambda kv: (-kv[1].score, kv[0])):
        survivor = root(absorbed)
        proposal.merges.append(Candidate(survivor, absorbed, cand.score, cand.resolver, cand.reason))
    return proposal


def _ambiguous(by_id: dict[str, EntityView], passing: list[Candidate]) -> dict[tuple[str, str], str]:
    """Pairs to leave alone:
    - an entity without an external id whose best matches are entities with different
      external ids, within AMBIGUITY_MARGIN of each other;
    - an entity whose own name is a name of two others that are not one thing themselves
      (a mention "Burn" and the songs "Burn (Usher song)" and "Burn (Nine Inch Nails song)",
      both shortened to "Burn"): which one it means, names cannot say."""
    options: dict[str, list[tuple[float, str]]] = defaultdict(list)
    partners: dict[str, set[str]] = defaultdict(set)
    joined = {c.pair() for c in passing}
    for c in passing:
        partners[c.a].add(c.b)
        partners[c.b].add(c.a)
        for x, y in ((c.a, c.b), (c.b, c.a)):
            if not by_id[x].has_external_id and by_id[y].has_external_id:
                options[x].append((c.score, y))
    out: dict[tuple[str, str], str] = {}
    for x, ys in partners.items():
        name = normalize(by_id[x].name)
        named = sorted(y for y in ys if name in by_id[y].keys)
        distinct = any((y1, y2) not in joined or guard(by_id[y1], by_id[y2])
                       for i, y1 in enumerate(named) for y2 in named[i + 1:])
        if distinct:
            for y in named:
                key = (x, y) if x < y else (y, x)
                out[key] = f"ambiguous: {by_id[x].name!r} names {len(named)} different entities"
    for x, scored in options.items():
        scored.sort(reverse=True)
        top = scored[0][0]
        close = [y for s, y in scored if s >= top - AMBIGUITY_MARGIN]
        ids = {by_id[y].wikidata or min(by_id[y].iris) for y in close}
        if len(ids) > 1:
            for y in close:
                key = (x, y) if x < y else (y, x)
                out[key] = f"ambiguous: {by_id[x].name!r} matches {len(ids)} identified entities equally"
    return out


def _with_reason(cand: Candidate, reason: str, refused: bool = False) -> Candidate:
    return Candidate(cand.a, cand.b, cand.score, cand.resolver, reason, refused)
