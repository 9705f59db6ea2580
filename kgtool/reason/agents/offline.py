"""CARE's four agent roles without an LLM.

The planner does not parse the question on its own: it lets the graph propose
readings. From the linked topic entity it walks the graph hop by hop (a beam
search over `GraphView.neighborhoods`, one read per depth) and keeps the paths
whose relations account for the question's wording, each hop for a part of
the question no earlier hop explained. The relations of the best path become the plan. The selector, the
critic and the generator then check single facts and chains with the same
relation matcher plus structural tests (who is the head, does the chain
connect, does the evidence name both ends).

None of this knows about Neo4j: the agents see a `GraphView`, which the
database layer implements with one read per call.
"""
from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol, Sequence

import numpy as np

from kgtool.reason.agents.base import PLACEHOLDER, CandidateFact, ChainLink, Judgement, Plan, Verdict
from kgtool.reason.relmatch import (
    Embedder,
    RelationMatcher,
    RelationProfile,
    TextAnalysis,
    fold,
    tokenize,
)

Mention = tuple[int, int, str, str]  # (start, end, entity_id, surface)


class GraphView(Protocol):
    """The slice of the graph the offline agents may read (one edit scope)."""

    def neighborhoods(self, entity_ids: Sequence[str], per_group: int) -> dict[str, list[CandidateFact]]:
        """1-hop facts of several entities, both directions (`direction` tells which);
        may keep only per_group facts per (relation, direction), since facts of one
        group are alike to the planner."""
        ...

    def link_mentions(self, text: str) -> list[Mention]:
        """Entity names/aliases found in text, longest non-overlapping first."""
        ...

    def entity_name(self, entity_id: str) -> str: ...

    def relation_phrases(self, relation_key: str) -> list[str]:
        """Label plus corpus phrasings; phrasings may carry a "{}" entity slot."""
        ...


def normalise_label(label: str) -> str:
    return re.sub(r"\s+", " ", fold(label)).strip()


def relation_key(fact: CandidateFact) -> str:
    """The id a relation is known by: its relation_id, else its normalised label."""
    return fact.relation_id or normalise_label(fact.relation)


def first_per_group(facts: Sequence[CandidateFact], per_group: int) -> list[CandidateFact]:
    """The first per_group facts of each (relation, direction): what `neighborhoods` may return."""
    taken: dict[tuple[str, str], int] = {}
    out = []
    for fact in facts:
        group = (relation_key(fact), fact.direction)
        if taken.get(group, 0) < per_group:
            taken[group] = taken.get(group, 0) + 1
            out.append(fact)
    return out


def same_name(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and normalise_label(a) == normalise_label(b)


@dataclass
class OfflinePlan(Plan):
    """A plan that also says which relation (and direction) each hop should follow.

    `entities`/`facts` are the path the planner found; the loop does not have
    to follow it (the selector re-decides each hop), but it explains the plan.
    """

    entities: list[str] = field(default_factory=list)  # planned answer id per hop
    facts: list[str] = field(default_factory=list)  # planned fact id per hop
    scores: list[float] = field(default_factory=list)  # question coverage won by each hop
    explained: list[list[str]] = field(default_factory=list)  # question words each hop accounts for
    score: float = 0.0  # the path's total score
    unexplained: list[str] = field(default_factory=list)  # question words no hop accounts for


# ---------------------------------------------------------------------------
# shared helpers


class _Profiles:
    """Relation profiles built from a GraphView's phrases, keyed by relation key."""

    def __init__(self, graph: GraphView | None, matcher: RelationMatcher):
        self.graph = graph
        self.matcher = matcher
        self._phrases: dict[str, list[str]] = {}  # the graph is asked once per relation

    def of(self, key: str, label: str = "") -> RelationProfile:
        phrases: list[str] = []
        if self.graph is not None:
            if key not in self._phrases:
                self._phrases[key] = list(self.graph.relation_phrases(key))
            phrases = self._phrases[key]
        if label and not any(normalise_label(p) == normalise_label(label) for p in phrases):
            phrases = [label, *phrases]
        return self.matcher.profile(key, phrases or [label or key])

    def of_fact(self, fact: CandidateFact) -> RelationProfile:
        return self.of(relation_key(fact), fact.relation)


def _name_spans(text: str, names: Sequence[str]) -> list[tuple[int, int]]:
    """Character spans where any of the names occurs as whole words (case/accents folded)."""
    low = fold(text)
    spans: list[tuple[int, int]] = []
    for name in names:
        n = fold(name).strip()
        if not n:
            continue
        for m in re.finditer(r"(?<!\w)" + re.escape(n) + r"(?!\w)", low):
            spans.append(m.span())
    return spans


def _token_coverage(name: str, text: str) -> float:
    """Share of a name's word tokens that occur in the text."""
    name_toks = {t.text.lower() for t in tokenize(fold(name))}
    if not name_toks:
        return 0.0
    text_toks = {t.text.lower() for t in tokenize(fold(text))}
    return len(name_toks & text_toks) / len(name_toks)


class _Mentions:
    """Does a text mention an entity? By its name first, then alias-aware through the graph.

    The plain name search is tried first because it is cheap and usually
    enough; the graph's linker (which knows aliases) is asked only when the
    name is not there, and its answers are remembered per text.
    """

    def __init__(self, graph: GraphView | None, cache_size: int = 4096):
        self.graph = graph
        self.cache_size = cache_size
        self._linked: OrderedDict[str, list[Mention]] = OrderedDict()

    def linked(self, text: str) -> list[Mention]:
        if self.graph is None:
            return []
        found = self._linked.get(text)
        if found is None:
            found = list(self.graph.link_mentions(text))
            self._linked[text] = found
            if len(self._linked) > self.cache_size:
                self._linked.popitem(last=False)
        return found

    def spans(self, text: str, entity_id: str | None, name: str | None) -> list[tuple[int, int]]:
        spans = _name_spans(text, [name]) if name else []
        if not spans and entity_id:
            spans = [(s, e) for s, e, eid, _ in self.linked(text) if eid == entity_id]
        return spans

    def support(self, text: str, entity_id: str | None, name: str | None) -> float:
        """1.0 when the entity is named in the text, else the name's token coverage."""
        if self.spans(text, entity_id, name):
            return 1.0
        return _token_coverage(name, text) if name else 0.0


def _placeholder_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(re.escape(PLACEHOLDER), text)]


def _endpoints(fact: CandidateFact) -> tuple[tuple[str, str], tuple[str, str]]:
    """((id, name) the hop starts from, (id, name) it leads to)."""
    if fact.direction == "in":
        return (fact.tail_id, fact.tail), (fact.head_id, fact.head)
    return (fact.head_id, fact.head), (fact.tail_id, fact.tail)


# ---------------------------------------------------------------------------
# planner


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
        improve: float = 0.3,
        hop_cost: float = 0.35,
        reverse_factor: float = 0.75,
        silent_cost: float = 0.5,
        max_silent: int = 2,
        max_topics: int = 3,
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
        self.reverse_factor = reverse_factor
        self.silent_cost = silent_cost
        self.max_silent = max_silent
        self.max_topics = max_topics

    # -- public ----------------------------------------------------------
    def plan(self, question: str) -> OfflinePlan:
        neighbours: dict[str, list[CandidateFact]] = {}
        best: tuple[float, OfflinePlan] | None = None
        for group in self._topic_groups(question, neighbours):
            for start, end, entity_id, surface in group:
                analysis = self.matcher.analyse(question, exclude=[(start, end)], whole=False)
                state = self._search(entity_id, analysis, neighbours)
                plan = self._to_plan(question, entity_id, surface, state, analysis)
                if best is None or plan.score > best[0]:
                    best = (plan.score, plan)
            # A longer mention wins as soon as it yields any explained hop.
            if best is not None and best[1].relations:
                break
        if best is None:
            return OfflinePlan(subquestions=[question])
        return best[1]

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
    def _hop_scores(self, analysis: TextAnalysis, fact: CandidateFact) -> tuple[str, np.ndarray]:
        key = relation_key(fact)
        scores = self.matcher.token_scores(analysis, self.profiles.of_fact(fact))
        if fact.direction == "in":
            scores = scores * self.reverse_factor
        return key, scores

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
        if not hops:
            return 0.0, owned, credited
        stems = [t.stem for t in analysis.tokens]
        owned_stems: list[set[str]] = [set() for _ in hops]
        mat = np.stack([h.scores for h in hops]) if n else np.zeros((len(hops), 0))
        order = np.argsort(-mat.max(axis=0), kind="stable") if n else []
        for t in order:
            col = mat[:, t]
            top = col.max()
            if top < self.claim:
                continue
            tied = [
                h for h in range(len(hops))
                if col[h] >= top - 1e-6 and not hops[h].silent and stems[t] not in owned_stems[h]
            ]
            if not tied:
                continue
            h = min(tied, key=lambda i: (len(owned[i]), i))
            owned[h].append(int(t))
            owned_stems[h].add(stems[t])
            credited[t] = top
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
            self._load([state.entity_id for state in beam], cache)
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

    def _extend(self, state: _State, analysis: TextAnalysis, cache: dict[str, list[CandidateFact]]) -> list[_State]:
        unexplained = state.best <= 0
        if not unexplained.any():
            return []
        # Facts sharing a relation and direction score the same, so each
        # group is scored once: hub entities (a country with hundreds of
        # citizens) cost one score per relation, not per fact.
        groups: dict[tuple[str, str], list[CandidateFact]] = {}
        for fact in self._facts(state.entity_id, cache):
            next_id = _endpoints(fact)[1][0]
            if fact.head_id == fact.tail_id or next_id in state.visited:
                continue
            groups.setdefault((relation_key(fact), fact.direction), []).append(fact)
        explaining: list[tuple[_State, list[CandidateFact]]] = []
        # (lean, facts, scores, child if already built); a bridge's child is built only if used
        bridges: list[tuple[float, list[CandidateFact], np.ndarray, _State | None]] = []
        for facts in groups.values():
            _key, scores = self._hop_scores(analysis, facts[0])
            explains = bool(self._gains(state, scores, unexplained).any())
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

    def _gains(self, state: _State, scores: np.ndarray, unexplained: np.ndarray) -> np.ndarray:
        """Tokens a hop with these scores would newly explain. The stopping rule: a
        hop must explain a part of the question that no earlier hop explained, or
        explain it clearly better (a word an earlier hop only loosely claimed)."""
        return (scores >= self.claim) & (unexplained | (scores >= state.best + self.improve))

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


def subquestion_for(prof: RelationProfile, entity: str, direction: str = "out") -> str:
    """A single-hop question for the relation about `entity`.

    Uses the relation's own question phrasing when the corpus gives one, so
    the sub-question reads as naturally as the data; otherwise a generic
    "What is the <label> of <entity>?".
    """
    label = prof.label or prof.key
    if direction == "in":
        return f"Which entity has {entity} as its {label}?"
    if prof.questions:
        return prof.questions[0].replace("{}", entity)
    return f"What is the {label} of {entity}?"


# ---------------------------------------------------------------------------
# selector


class OfflineSelector:
    """Judges one hop's candidates under CARE's four rules, without an LLM.

    relation fit: with the plan's relation key for the hop (pass
    `relation_key`, and `direction` if known) a candidate fits when it is that
    relation, or one whose phrases are as close as CARE's delta_rel asks;
    without it, when the candidate relation explains the sub-question's
    wording well (>= `fit_threshold`) and nearly as well as the best
    candidate (within `margin`).
    """

    def __init__(
        self,
        graph: GraphView | None,
        matcher: RelationMatcher,
        *,
        fit_threshold: float = 0.5,
        margin: float = 0.15,
        same_relation: float = 0.80,
        reverse_factor: float = 0.75,
        name_coverage: float = 0.8,
    ):
        self.graph = graph
        self.matcher = matcher
        self.profiles = _Profiles(graph, matcher)
        self.mentions = _Mentions(graph)
        self.fit_threshold = fit_threshold
        self.margin = margin
        self.same_relation = same_relation
        self.reverse_factor = reverse_factor
        self.name_coverage = name_coverage

    def judge(
        self,
        subquestion: str,
        entity: str,
        candidates: Sequence[CandidateFact],
        *,
        relation_key: str | None = None,
        direction: str | None = None,
    ) -> list[Judgement]:
        fits = self._relation_fits(subquestion, entity, candidates, relation_key, direction)
        evidence = self._evidence(candidates)
        out: list[Judgement] = []
        for cand, (fit, fits_ok), (ev_score, ev_ok) in zip(candidates, fits, evidence):
            (start_id, start_name), (end_id, end_name) = _endpoints(cand)
            entity_ok = entity in (start_id, start_name) or same_name(entity, start_name)
            loop_free = not (cand.head_id == cand.tail_id or same_name(cand.head, cand.tail))
            score = 0.5 * fit + 0.3 * ev_score + 0.1 * entity_ok + 0.1 * loop_free
            j = Judgement(
                fact_id=cand.fact_id,
                score=0.0,
                entity_match=entity_ok,
                evidence_entails=ev_ok,
                relation_fits=fits_ok,
                not_self_loop=loop_free,
            )
            # Failing candidates stay in the pool (for backtracking) but rank
            # below every passing one.
            j.score = round(score if j.passes else 0.5 * score, 6)
            j.reason = _reason(j, fit, ev_score)
            out.append(j)
        return out

    def _evidence(self, candidates: Sequence[CandidateFact]) -> list[tuple[float, bool]]:
        """Per candidate: does the evidence name both ends (the rule), and how
        clearly does it say the relation (graded, for the score)?

        The wording only grades the score: evidence phrasing varies far more
        than relation labels, and a sentence naming both ends of a fact the
        graph asserts is the grounding CARE asks for.
        """
        cover: list[tuple[float, float]] = []
        items: list[tuple[str, list[tuple[int, int]]]] = []
        for cand in candidates:
            text = cand.evidence or ""
            head_spans = self.mentions.spans(text, cand.head_id, cand.head)
            tail_spans = self.mentions.spans(text, cand.tail_id, cand.tail)
            head = 1.0 if head_spans else _token_coverage(cand.head, text)
            tail = 1.0 if tail_spans else _token_coverage(cand.tail, text)
            cover.append((head, tail))
            items.append((text, head_spans + tail_spans))
        residues = self.matcher.analyse_many(items)
        out = []
        for cand, (head, tail), residue in zip(candidates, cover, residues):
            says = self.matcher.expresses(residue, self.profiles.of_fact(cand)) if (cand.evidence or "").strip() else 0.0
            out.append(((min(head, tail) + says) / 2, head >= self.name_coverage and tail >= self.name_coverage))
        return out

    def _relation_fits(
        self,
        subquestion: str,
        entity: str,
        candidates: Sequence[CandidateFact],
        key: str | None,
        direction: str | None,
    ) -> list[tuple[float, bool]]:
        if key is not None:
            intended = self.profiles.of(key)
            out = []
            for c in candidates:
                sim = self.matcher.relation_similarity(self.profiles.of_fact(c), intended)
                same_way = direction is None or c.direction == direction
                fit = sim if same_way else sim * self.reverse_factor
                out.append((fit, same_way and sim >= self.same_relation))
            return out
        analysis = _subquestion_analysis(self.matcher, self.mentions, subquestion, entity, candidates)
        raw = []
        for c in candidates:
            f = self.matcher.fit(analysis, self.profiles.of_fact(c))
            raw.append(f * (self.reverse_factor if c.direction == "in" else 1.0))
        top = max(raw, default=0.0)
        return [(f, f >= self.fit_threshold and f >= top - self.margin) for f in raw]


def _subquestion_analysis(
    matcher: RelationMatcher,
    mentions: _Mentions,
    subquestion: str,
    entity: str,
    candidates: Sequence[CandidateFact] = (),
) -> TextAnalysis:
    """The sub-question's own wording: the entity and the placeholder cut out."""
    names = {entity}
    for c in candidates:
        (sid, sname), _ = _endpoints(c)
        if entity in (sid, sname):
            names.add(sname)
    spans = _placeholder_spans(subquestion)
    for name in names:
        spans += mentions.spans(subquestion, entity if name == entity else None, name)
    return matcher.analyse(subquestion, exclude=spans)


def _reason(j: Judgement, fit: float, ev: float) -> str:
    failed = [
        name
        for name, ok in (
            ("entity match", j.entity_match),
            ("evidence entails", j.evidence_entails),
            ("relation fits", j.relation_fits),
            ("not self loop", j.not_self_loop),
        )
        if not ok
    ]
    status = "passes" if not failed else "fails " + ", ".join(failed)
    return f"{status} (relation fit {fit:.2f}, evidence {ev:.2f})"


# ---------------------------------------------------------------------------
# critic


class OfflineCritic:
    """Audits a chain hop by hop and names the first hop that breaks.

    Per hop, in the protocol's order: local relevance (the fact's relation
    fits the sub-question; a self-loop fails here too, since such a hop does
    not answer anything), bridge continuity (the hop starts where the previous
    one ended, and its fact joins the hop's own endpoints), grounding (the
    evidence names both ends and says the relation). Then final deduction:
    the answer is the last hop's answer.
    """

    def __init__(
        self,
        graph: GraphView | None,
        matcher: RelationMatcher,
        *,
        fit_threshold: float = 0.5,
        same_relation: float = 0.80,
        name_coverage: float = 0.8,
    ):
        self.graph = graph
        self.matcher = matcher
        self.profiles = _Profiles(graph, matcher)
        self.mentions = _Mentions(graph)
        self.fit_threshold = fit_threshold
        self.same_relation = same_relation
        self.name_coverage = name_coverage

    def review(
        self,
        question: str,
        chain: Sequence[ChainLink],
        answer: str,
        *,
        relations: Sequence[str] | None = None,
    ) -> Verdict:
        if not chain:
            return Verdict(False, 1, "local_relevance", "the chain has no hops")
        for i, link in enumerate(chain):
            intended = relations[i] if relations is not None and i < len(relations) else None
            problem = (
                self._local_relevance(link, intended)
                or self._bridge(link, chain[i - 1] if i else None)
                or self._grounding(link)
            )
            if problem is not None:
                kind, why = problem
                return Verdict(False, link.hop or i + 1, kind, f"hop {i + 1}: {why}")
        last = chain[-1]
        if not same_name(answer, last.answer):
            return Verdict(
                False, last.hop or len(chain), "final_deduction",
                f"the answer {answer!r} is not the last hop's answer {last.answer!r}",
            )
        return Verdict(True, None, None, "every hop fits its sub-question, connects and is grounded")

    def _local_relevance(self, link: ChainLink, intended: str | None) -> tuple[str, str] | None:
        if same_name(link.entity_in, link.answer) or (
            link.fact is not None and (link.fact.head_id == link.fact.tail_id or same_name(link.fact.head, link.fact.tail))
        ):
            return "local_relevance", f"self-loop on {link.entity_in!r}: the hop does not move"
        if link.fact is None:
            return self._generated_relevance(link)
        prof = self.profiles.of_fact(link.fact)
        if intended is not None:
            # The plan named the hop's relation: the fact must be that one.
            sim = self.matcher.relation_similarity(prof, self.profiles.of(intended))
            if sim >= self.same_relation:
                return None
            return "local_relevance", f"relation {link.fact.relation!r} is not the planned {intended!r} ({sim:.2f})"
        analysis = _subquestion_analysis(self.matcher, self.mentions, link.subquestion, link.entity_in, [link.fact])
        fit = self.matcher.fit(analysis, prof)
        if fit < self.fit_threshold:
            return "local_relevance", f"relation {link.fact.relation!r} does not fit {link.subquestion!r} ({fit:.2f})"
        return None

    def _generated_relevance(self, link: ChainLink) -> tuple[str, str] | None:
        text = link.evidence or ""
        if not text:
            return "local_relevance", "generated hop without evidence"
        q = _subquestion_analysis(self.matcher, self.mentions, link.subquestion, link.entity_in)
        connector = _connector(text, [link.entity_in, link.answer])
        if q.size == 0 or not connector:
            return "local_relevance", "generated hop: nothing to compare"
        fit = self.matcher.fit(q, self.matcher.profile("text:" + connector, [connector]))
        if fit < self.fit_threshold:
            return "local_relevance", f"generated evidence does not answer {link.subquestion!r} ({fit:.2f})"
        return None

    def _bridge(self, link: ChainLink, prev: ChainLink | None) -> tuple[str, str] | None:
        if prev is not None and not same_name(prev.answer, link.entity_in):
            return "bridge_continuity", f"starts from {link.entity_in!r} but hop {prev.hop} ended at {prev.answer!r}"
        if link.fact is not None:
            (_, start_name), (_, end_name) = _endpoints(link.fact)
            if not same_name(start_name, link.entity_in):
                return "bridge_continuity", f"fact starts at {start_name!r}, not at {link.entity_in!r}"
            if not same_name(end_name, link.answer):
                return "bridge_continuity", f"fact leads to {end_name!r}, not to the hop answer {link.answer!r}"
        return None

    def _grounding(self, link: ChainLink) -> tuple[str, str] | None:
        text = link.evidence or (link.fact.evidence if link.fact is not None else "")
        if not text.strip():
            return "grounding", "no evidence sentence"
        ids = _endpoints(link.fact) if link.fact is not None else ((None, link.entity_in), (None, link.answer))
        for eid, name in ids:
            if self.mentions.support(text, eid, name) < self.name_coverage:
                return "grounding", f"evidence does not mention {name!r}"
        return None


def _connector(text: str, names: Sequence[str]) -> str:
    """The text with the given names cut out: what it says between them."""
    spans = _name_spans(text, [n for n in names if n])
    kept = [t.text for t in tokenize(text, spans)]
    return " ".join(kept)


# ---------------------------------------------------------------------------
# generator


class OfflineGenerator:
    """Fallback hop answer read off local evidence, or None.

    A sentence supports an answer when it names the entity, and the words
    joining the entity to another mention express what the sub-question asks
    (matched like a relation phrase). The other mention is the answer; with a
    graph it is linked and returned by its canonical name, without one the
    answer is the sentence's tail after the joining words.
    """

    def __init__(self, graph: GraphView | None, matcher: RelationMatcher, *, threshold: float = 0.5):
        self.graph = graph
        self.matcher = matcher
        self.mentions = _Mentions(graph)
        self.threshold = threshold

    def generate(self, subquestion: str, entity: str, evidence: Sequence[str]) -> str | None:
        entity_id, entity_name = self._resolve(entity)
        q = self.matcher.analyse(
            subquestion,
            exclude=_placeholder_spans(subquestion) + self.mentions.spans(subquestion, entity_id, entity_name),
        )
        if q.size == 0:
            return None
        core = " ".join(t.text.lower() for t in q.tokens)
        q_prof = self.matcher.profile("text:" + core, [core])
        best: tuple[float, int, str] | None = None
        for sentence in evidence:
            for fit, order, answer in self._readings(sentence, entity_id, entity_name, q, q_prof):
                if fit >= self.threshold and (best is None or (fit, order) > best[:2]):
                    best = (fit, order, answer)
        return best[2] if best else None

    def _resolve(self, entity: str) -> tuple[str | None, str]:
        if self.graph is not None:
            name = self.graph.entity_name(entity)
            if name:
                return entity, name
        return None, entity

    def _readings(
        self, sentence: str, entity_id: str | None, entity_name: str, q: TextAnalysis, q_prof: RelationProfile
    ) -> list[tuple[float, int, str]]:
        """(fit, tie-break order, answer) for each way of reading an answer off the sentence."""
        ent_spans = self.mentions.spans(sentence, entity_id, entity_name)
        if not ent_spans:
            return []
        ent = min(ent_spans)
        out: list[tuple[float, int, str]] = []
        if self.graph is not None:
            for s, e, eid, surface in self.mentions.linked(sentence):
                if eid == entity_id or (s, e) == ent or same_name(surface, entity_name):
                    continue
                fit = self._fit(sentence, [ent, (s, e)], q, q_prof)
                out.append((fit, 0, self.graph.entity_name(eid) or surface))
            if out:
                return out
        # No linkable mention: try every tail of the sentence after the entity
        # as the answer and the rest as the joining words; on equal fit the
        # shortest tail, so glue words stay out of the answer.
        words = [t for t in tokenize(sentence, [ent]) if t.start >= ent[1]]
        for k in range(1, len(words)):
            tail = sentence[words[k].start :].strip().rstrip(".!?;:, ")
            if not any(t.content for t in tokenize(tail)):
                continue
            fit = self._fit(sentence, [ent, (words[k].start, len(sentence))], q, q_prof)
            out.append((fit, k, tail))
        return out

    def _fit(
        self, sentence: str, cut: list[tuple[int, int]], q: TextAnalysis, q_prof: RelationProfile
    ) -> float:
        """How well the joining words and the sub-question say the same thing, both ways.

        One way alone is not enough: the sub-question's words must be found in
        the joining words, and the joining words must not carry anything the
        sub-question does not ask (such as part of the answer).
        """
        connector = " ".join(t.text for t in tokenize(sentence, cut))
        if not connector:
            return 0.0
        forward = self.matcher.fit(q, self.matcher.profile("text:" + connector, [connector]))
        conn = self.matcher.analyse(connector, whole=False)
        backward = float(self.matcher.token_scores(conn, q_prof).mean()) if conn.size else 0.0
        return min(forward, backward)


# ---------------------------------------------------------------------------


class OfflineAgents(NamedTuple):
    planner: OfflinePlanner
    selector: OfflineSelector
    critic: OfflineCritic
    generator: OfflineGenerator
    matcher: RelationMatcher


def build_offline_agents(
    graph: GraphView, embedder: Embedder | RelationMatcher, **planner_options
) -> OfflineAgents:
    """The four offline agents over one graph view, sharing one matcher (and its caches)."""
    matcher = embedder if isinstance(embedder, RelationMatcher) else RelationMatcher(embedder)
    return OfflineAgents(
        OfflinePlanner(graph, matcher, **planner_options),
        OfflineSelector(graph, matcher),
        OfflineCritic(graph, matcher),
        OfflineGenerator(graph, matcher),
        matcher,
    )
