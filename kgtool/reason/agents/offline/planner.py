"""The offline planner: a beam search over the graph for the relation path the question describes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from kgtool.core.types import (
    PLACEHOLDER,
    CandidateFact,
)
from kgtool.reason.agents.offline.common import (
    GraphView,
    Mention,
    OfflinePlan,
    StatedOnly,
    Thresholds,
    _endpoints,
    _Profiles,
    reads_passages,
    relation_key,
)
from kgtool.reason.agents.offline.gloss_fit import GlossScorer
from kgtool.reason.agents.offline.peer_links import peer_links
from kgtool.reason.agents.offline.plan_structured import (
    choose, phrases_left, plan_structured, settles_as_much, subquestion_for, weigh)
from kgtool.reason.agents.offline.structured import SearchSettings, StructuredSearch
from kgtool.reason.lexicon import Lexicon
from kgtool.reason.reading.analysis import analysed
from kgtool.reason.relmatch import (
    RelationMatcher,
    RelationProfile,
    TextAnalysis,
)
from kgtool.reason.offline_config import OFFLINE


@dataclass
class _Hop:
    fact: CandidateFact
    key: str
    direction: str
    scores: np.ndarray  # this hop's per-token explanation scores (direction applied)
    silent: bool  # crossed without explaining any part of the question


@dataclass
class _State:
    entity_id: str
    hops: tuple[_Hop, ...]
    visited: frozenset[str]
    best: np.ndarray  # best claimed explanation score per question token so far
    soft: np.ndarray  # best score per token, claimed or not
    silent: int = 0
    score: float = 0.0

    @property
    def partial(self) -> float:
        """Leaning towards the still unexplained words (scores below the claim level)."""
        return float(self.soft[self.best <= 0].sum())

    def rank(self) -> tuple[float, float, int]:
        # Exact score ties (two relations each explaining one word outright)
        # are broken by how much the path leans towards the words left over.
        return (round(self.score, 6), round(self.partial, 6), -len(self.hops))


class OfflinePlanner:
    """Decomposes a question by finding the graph path whose relations explain it.

    Parameters (all general, none tied to a dataset):
    claim: a hop explains a question token when its score for it reaches this.
    hop_cost: what a hop must earn in explained tokens to be worth taking;
        it stops a path from wandering on to relations that fit only loosely.
    reverse_factor: scores of hops read against a fact's direction are scaled
        by this; corpus phrasings describe the head-to-tail reading.
    silent_cost: price of crossing one hop the question does not name (a
        paraphrase may leave a link implicit); at most `max_silent` per path,
        and only from an entity none of whose relations explains anything new.
    text_prior: weight of a fact read only from passages against one an edit or
        a fact file states (1.0: no preference; default: thresholds.text_prior);
        see `source_prior`.
    structured: also read the question's relation phrases from its structure
        (kgtool.reason.question), search the path that explains them in order
        (StructuredSearch) and `choose` between it and the word-coverage search
        (default: thresholds.structured, the `offline_structured` setting, on).
    """

    def __init__(
        self,
        graph: GraphView,
        matcher: RelationMatcher,
        *,
        beam_width: int = 8,
        fanout: int = 6,
        max_hops: int = 5,
        claim: float = 0.5,
        improve: float = OFFLINE.planner_improve,
        hop_cost: float = OFFLINE.planner_hop_cost,
        thresholds: Thresholds = Thresholds(),
        silent_cost: float = 0.5,
        max_silent: int = 2,
        max_topics: int = 3,
        text_prior: float | None = None,
        structured: bool | None = None,
        lexicon: Lexicon | None | bool = True,
    ):
        self.graph = graph
        self.matcher = matcher
        self.profiles = _Profiles(graph, matcher)
        self.beam_width = beam_width
        self.fanout = fanout
        self.max_hops = max_hops
        self.claim = claim
        self.improve = improve
        self.hop_cost = hop_cost
        self.reverse_factor = thresholds.reverse_factor
        self.silent_cost = silent_cost
        self.max_silent = max_silent
        self.max_topics = max_topics
        # _group_scores' memo, checked against the analysis it was built for
        self._scores_memo: dict[tuple, tuple[TextAnalysis, np.ndarray, np.ndarray]] = {}
        self.text_prior = thresholds.text_prior if text_prior is None else text_prior
        self.structured = thresholds.structured if structured is None else structured
        if lexicon is True:
            lexicon = Lexicon.load()
        self.phrases = GlossScorer(matcher, lexicon or None)
        self.search_settings = SearchSettings(reverse_factor=self.reverse_factor, max_hops=max_hops + 1)

    def source_prior(self, fact: CandidateFact) -> float:
        """Facts an edit or a fact file states outrank facts read from passages (`text_prior`)."""
        return 1.0 if fact.stated else self.text_prior

    # -- public ----------------------------------------------------------
    def plan(self, question: str) -> OfflinePlan:
        neighbours: dict[str, list[CandidateFact]] = {}
        found = self._plan(question, neighbours)
        found.peer_links = peer_links(found, neighbours, self.graph.entity_name)
        return found

    def _plan(self, question: str, neighbours: dict[str, list[CandidateFact]]) -> OfflinePlan:
        groups = self._topic_groups(question, neighbours)
        search = self._structured_search(neighbours) if self.structured else None
        if search is not None:
            self._embed_once(question, groups, search)
        coverage = self._plan_coverage(question, groups, neighbours)
        if self.text_prior < 1.0 and reads_passages(coverage.facts, neighbours):
            # the source prior: a path through facts read only from passages does not overrule one
            # through stated facts that explains every relation phrase of the question (a passage hop
            # would only add a word such as the answer's type, "which city", and change the answer)
            stated = self._plan_coverage(question, groups, StatedOnly(neighbours))
            if stated.relations and not stated.unexplained and settles_as_much(groups, stated, coverage):
                coverage = stated
        if search is None:
            return coverage
        found = plan_structured(search, question, groups, self.graph.entity_name, self.profiles.of_fact)
        if found is None:
            return coverage
        if self.text_prior < 1.0:
            # the source prior: a coverage path through facts read only from passages does not
            # overrule a structured path through facts that edits or fact files state
            if (reads_passages(coverage.facts, neighbours) and not reads_passages(found.facts, neighbours)
                    and settles_as_much(groups, found, coverage)):
                return found
        named = {m[2] for g in groups for m in g} - {found.topic_id}  # the question's other names
        return weigh(search, question, found, coverage, neighbours, named)

    def _structured_search(self, neighbours: dict[str, list[CandidateFact]]) -> StructuredSearch:
        """The structured search (plan_structured.plan_structured), reading through the planner's cache."""
        def read(entity_ids):
            self._load(entity_ids, neighbours)
            return {e: neighbours.get(e, []) for e in entity_ids}

        return StructuredSearch(self.phrases, self.profiles.of_fact, read, self.search_settings,
                                prior=self.source_prior)

    def _embed_once(self, question: str, groups: list[list[Mention]], search: StructuredSearch) -> None:
        """One embedder call for the strings both searches will ask for, for every topic mention:
        each model call has a fixed cost (measured: ~50 ms on one free core, several times that on
        a busy machine), and the two searches would otherwise make two or more per question."""
        strings: list[str] = []
        for group in groups:
            for start, end, _entity_id, _surface in group:
                strings += self.matcher.strings(question, [(start, end)], whole=False)
                strings += self.phrases.strings(search.wanted(analysed(question).reading((start, end))))
        if strings:
            self.matcher.encoder.encode(list(dict.fromkeys(strings)))

    def _plan_coverage(self, question: str, groups: list[list[Mention]],
                       neighbours: dict[str, list[CandidateFact]]) -> OfflinePlan:
        """The word-coverage search: the path whose relations account for most question words."""
        best: tuple[float, OfflinePlan, tuple[int, int]] | None = None
        for group in groups:
            for start, end, entity_id, surface in group:
                analysis = self.matcher.analyse(question, exclude=[(start, end)], whole=False)
                state = self._search(entity_id, analysis, neighbours)
                plan = self._to_plan(question, entity_id, surface, state, analysis)
                if best is None or plan.score > best[0]:
                    best = (plan.score, plan, (start, end))
            # A longer mention wins as soon as it yields any explained hop.
            if best is not None and best[1].relations:
                break
        if best is None:
            return OfflinePlan(subquestions=[question])
        _score, plan, topic = best
        plan.unexplained = phrases_left(analysed(question).reading(topic), plan.unexplained)
        plan.topic_span = topic
        return plan

    # -- topic linking ---------------------------------------------------
    @property
    def per_group(self) -> int:
        # _extend takes at most `fanout` facts of a group, after skipping those
        # leading back into the path (<= max_hops + 1 entities) and a self-loop
        return self.fanout + self.max_hops + 2

    def _facts(self, entity_id: str, cache: dict[str, list[CandidateFact]]) -> list[CandidateFact]:
        if entity_id not in cache:
            self._load([entity_id], cache)
        return cache[entity_id]

    def _load(self, entity_ids, cache: dict[str, list[CandidateFact]]) -> None:
        """Read the neighbourhoods not yet in the cache, all in one call."""
        missing = [e for e in dict.fromkeys(entity_ids) if e not in cache]
        if missing:
            cache.update(self.graph.neighborhoods(missing, self.per_group))
            self.profiles.prefetch([f for e in missing for f in cache.get(e, ())], self.phrases.lexicon)

    def _topic_groups(self, question: str, cache: dict[str, list[CandidateFact]]) -> list[list[Mention]]:
        """Mentions with facts, grouped by surface length, longest group first."""
        linked = self.graph.link_mentions(question)
        self._load([m[2] for m in linked], cache)
        mentions = [m for m in linked if self._facts(m[2], cache)]
        by_len: dict[int, list[Mention]] = {}
        for m in mentions:
            by_len.setdefault(m[1] - m[0], []).append(m)
        groups = [by_len[k] for k in sorted(by_len, reverse=True)]
        out: list[list[Mention]] = []
        taken = 0
        for g in groups:
            if taken >= self.max_topics:
                break
            out.append(g[: self.max_topics - taken])
            taken += len(out[-1])
        return out

    # -- search ----------------------------------------------------------
    def _hop_scores(self, analysis: TextAnalysis, fact: CandidateFact, discount: bool = False) -> tuple[str, np.ndarray]:
        key = relation_key(fact)
        scores = self.matcher.token_scores(analysis, self.profiles.of_fact(fact))
        if fact.direction == "in":
            scores = scores * self.reverse_factor
        if discount:
            scores = scores * self.text_prior  # the source prior (see _prior_applies)
        return key, scores

    def _prior_applies(self, pool: Sequence[CandidateFact]) -> bool:
        """The source prior in the word-coverage search: where an entity has stated facts, a relation
        read only from passages claims a question word below a stated one that explains it as well
        (its scores times text_prior). An entity known only from passages (a text-only store) is
        scored as it always was."""
        return self.text_prior < 1.0 and any(f.stated for f in pool)

    def _group_scores(self, analysis: TextAnalysis, fact: CandidateFact,
                      discount: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """`_hop_scores` of a fact and where they reach the claim level, once per search.

        A search meets the same (relation, label, direction) in many states (every
        beam state next to a country has its citizens), and the scores depend on
        nothing else; the arrays are shared, so nobody may write to them.
        """
        memo_key = (fact.relation, fact.relation_id, fact.direction, discount)
        found = self._scores_memo.get(memo_key)
        if found is None or found[0] is not analysis:
            scores = self._hop_scores(analysis, fact, discount)[1]
            found = self._scores_memo[memo_key] = (analysis, scores, scores >= self.claim)
        return found[1], found[2]

    def _score(self, hops: Sequence[_Hop], analysis: TextAnalysis) -> tuple[float, list[list[int]], np.ndarray]:
        """Path score, the tokens each hop owns, and the credited score per token.

        Every token goes to the hop that explains it best; on ties to the hop
        owning fewer tokens. A hop owns at most one occurrence of a word: a
        word said twice ("the head of state of ... the head of state of")
        is two mentions and needs two hops. A hop that ends up owning nothing
        is paid for as a silent hop.
        """
        n = analysis.size
        owned: list[list[int]] = [[] for _ in hops]
        credited = np.zeros(n, dtype=np.float32)
        if not hops or not n:
            cost = sum(self.silent_cost for _hop in hops)  # nothing to own: every hop is paid as silent
            return float(credited.sum()) - cost, owned, credited
        stems = [t.stem for t in analysis.tokens]
        owned_stems: list[set[str]] = [set() for _ in hops]
        mat = np.stack([h.scores for h in hops])
        top = mat.max(axis=0)
        # The comparisons are made on the float32 arrays, as they were on numpy scalars token by
        # token: the same ties, computed in three array operations instead of a few per token.
        claimed = (top >= self.claim).tolist()
        near = (mat >= top - OFFLINE.score_tie).T.tolist()  # near[t][h]: hop h is tied for the best score of token t
        silent = [hop.silent for hop in hops]
        for t in np.argsort(-top, kind="stable").tolist():
            if not claimed[t]:
                continue
            stem, tied = stems[t], near[t]
            h = -1  # among the tied hops that may own this word, the one owning fewest, then the first
            for i in range(len(hops)):
                if tied[i] and not silent[i] and stem not in owned_stems[i]:
                    if h < 0 or len(owned[i]) < len(owned[h]):
                        h = i
            if h < 0:
                continue
            owned[h].append(t)
            owned_stems[h].add(stem)
            credited[t] = top[t]
        cost = sum(self.silent_cost if (hop.silent or not owned[h]) else self.hop_cost for h, hop in enumerate(hops))
        return float(credited.sum()) - cost, owned, credited

    def _search(
        self, topic_id: str, analysis: TextAnalysis, cache: dict[str, list[CandidateFact]]
    ) -> _State | None:
        n = analysis.size
        start = _State(topic_id, (), frozenset([topic_id]), np.zeros(n, dtype=np.float32), np.zeros(n, dtype=np.float32))
        beam = [start]
        finished: list[_State] = []
        for _depth in range(self.max_hops):
            if finished and self._settled(beam, max(finished, key=_State.rank), n):
                break  # nothing the beam can still grow into would be chosen: no read for it
            # a state that explains the whole question is not extended (see _extend): its
            # neighbourhood is not read (for a 4-hop question, the whole of the fifth read)
            self._load([state.entity_id for state in beam if (state.best <= 0).any()], cache)
            grown: list[_State] = []
            for state in beam:
                grown.extend(self._extend(state, analysis, cache))
            if not grown:
                break
            grown.sort(key=_State.rank, reverse=True)
            seen: set[tuple] = set()
            beam = []
            for s in grown:
                sig = (s.entity_id, tuple(h.key for h in s.hops))
                if sig in seen:
                    continue
                seen.add(sig)
                beam.append(s)
                if len(beam) >= self.beam_width:
                    break
            finished.extend(s for s in beam if not s.hops[-1].silent)
        if not finished:
            return None
        # Highest score; on ties the shorter path (fewer unsupported steps).
        return max(finished, key=_State.rank)

    def _settled(self, beam: Sequence[_State], best: _State, n: int) -> bool:
        """True when no path grown from the beam could outrank `best`.

        A path of k hops scores at most n * cap - k * (the cheaper hop cost):
        every hop's score for a token is at most 1 (at most reverse_factor
        against a fact's direction), a token is credited once, and every hop
        is paid for. When each state still to extend is bounded below `best`
        (by more than the 6 decimals ranks are compared at), all they could
        become would rank below it, and so would every later state, which all
        descend from them: the search would end with `best` anyway. Typically
        the states beside a path that explains every word of the question in
        the words of its relations, whose extension costs a neighbourhood read.
        """
        cheapest = min(self.hop_cost, self.silent_cost)
        if cheapest < 0:
            return False  # then longer paths are not bounded
        cap = n * max(1.0, self.reverse_factor)
        limit = best.score - OFFLINE.prune_slack
        return all(not (state.best <= 0).any() or cap - (len(state.hops) + 1) * cheapest < limit for state in beam)

    def _extend(self, state: _State, analysis: TextAnalysis, cache: dict[str, list[CandidateFact]]) -> list[_State]:
        unexplained = state.best <= 0
        if not unexplained.any():
            return []
        # Facts sharing a relation and direction score the same, so each
        # group is scored once: hub entities (a country with hundreds of
        # citizens) cost one score per relation, not per fact.
        groups: dict[tuple[str, str], list[CandidateFact]] = {}
        pool = self._facts(state.entity_id, cache)
        prior = self._prior_applies(pool)
        for fact in pool:
            next_id = _endpoints(fact)[1][0]
            if fact.head_id == fact.tail_id or next_id in state.visited:
                continue
            groups.setdefault((relation_key(fact), fact.direction), []).append(fact)
        explaining: list[tuple[_State, list[CandidateFact]]] = []
        # (lean, facts, scores, child if already built); a bridge's child is built only if used
        bridges: list[tuple[float, list[CandidateFact], np.ndarray, _State | None]] = []
        reach = state.best + self.improve
        for facts in groups.values():
            scores, claimable = self._group_scores(analysis, facts[0], prior and not facts[0].stated)
            explains = bool(self._gains(scores, claimable, unexplained, reach).any())
            proto = self._child(state, facts[0], analysis, scores, explains=True) if explains else None
            if proto is not None and proto.silent == state.silent:
                explaining.append((proto, facts))
            else:
                bridges.append((float((scores * unexplained).sum()), facts, scores, proto))
        if explaining:
            explaining.sort(key=lambda pf: pf[0].rank(), reverse=True)
            chosen = explaining
        else:
            # Unnamed links are crossed one at a time (two in a row would let
            # a path drift anywhere), preferring the relation that leans most
            # towards what is still unexplained, even below the claim level.
            if state.silent >= self.max_silent or (state.hops and state.hops[-1].silent):
                return []
            bridges.sort(key=lambda b: -b[0])
            chosen = ((proto or self._child(state, facts[0], analysis, scores, explains=False), facts)
                      for _lean, facts, scores, proto in bridges)
        out: list[_State] = []
        for proto, facts in chosen:
            for fact in facts:
                out.append(proto if fact is facts[0] else self._rebind(proto, fact))
                if len(out) >= self.fanout:
                    return out
        return out

    def _gains(self, scores: np.ndarray, claimable: np.ndarray, unexplained: np.ndarray,
               reach: np.ndarray) -> np.ndarray:
        """Tokens a hop with these scores would newly explain. The stopping rule: a
        hop must explain a part of the question that no earlier hop explained, or
        explain it clearly better (a word an earlier hop only loosely claimed).
        `claimable` is scores >= claim, `reach` the state's best + improve."""
        return claimable & (unexplained | (scores >= reach))

    def _child(self, state: _State, fact: CandidateFact, analysis: TextAnalysis, scores: np.ndarray,
               *, explains: bool) -> _State:
        """The state after one more hop through `fact`; `explains`: `_gains` found a new part."""
        key = relation_key(fact)
        new_part = explains
        hops = (*state.hops, _Hop(fact, key, fact.direction, scores, silent=not new_part))
        score, owned, credited = self._score(hops, analysis)
        if new_part and not owned[-1]:
            new_part = False
            hops = (*state.hops, _Hop(fact, key, fact.direction, scores, silent=True))
            score, owned, credited = self._score(hops, analysis)
        next_id = _endpoints(fact)[1][0]
        return _State(
            next_id,
            hops,
            state.visited | {next_id},
            credited,
            np.maximum(state.soft, scores),
            state.silent + (0 if new_part else 1),
            score,
        )

    @staticmethod
    def _rebind(proto: _State, fact: CandidateFact) -> _State:
        """The same step through another fact of the same relation."""
        last = proto.hops[-1]
        next_id = _endpoints(fact)[1][0]
        return _State(
            next_id,
            (*proto.hops[:-1], _Hop(fact, last.key, last.direction, last.scores, last.silent)),
            (proto.visited - {proto.entity_id}) | {next_id},
            proto.best,
            proto.soft,
            proto.silent,
            proto.score,
        )

    # -- plan assembly ---------------------------------------------------
    def _to_plan(
        self, question: str, topic_id: str, surface: str, state: _State | None, analysis: TextAnalysis
    ) -> OfflinePlan:
        topic_name = self.graph.entity_name(topic_id) or surface
        if state is None or not state.hops:
            return OfflinePlan(
                subquestions=[question], topic=topic_name, topic_id=topic_id, score=float("-inf"),
                unexplained=[t.text for t in analysis.tokens],
            )
        score, owned, _credited = self._score(state.hops, analysis)
        subqs: list[str] = []
        for i, hop in enumerate(state.hops):
            prof = self.profiles.of_fact(hop.fact)
            subqs.append(subquestion_for(prof, topic_name if i == 0 else PLACEHOLDER, hop.direction))
        covered = {t for o in owned for t in o}
        return OfflinePlan(
            subquestions=subqs,
            topic=topic_name,
            topic_id=topic_id,
            relations=[h.key for h in state.hops],
            directions=[h.direction for h in state.hops],
            entities=[_endpoints(h.fact)[1][0] for h in state.hops],
            facts=[h.fact.fact_id for h in state.hops],
            scores=[float(sum(state.hops[i].scores[t] for t in o)) for i, o in enumerate(owned)],
            explained=[[analysis.tokens[t].text for t in o] for o in owned],
            score=score,
            unexplained=[tok.text for k, tok in enumerate(analysis.tokens) if k not in covered],
        )



__all__ = ["OfflinePlanner", "choose", "phrases_left", "subquestion_for"]
