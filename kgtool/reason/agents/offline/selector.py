"""The offline selector: CARE's four rules on one hop's candidates, without an LLM."""
from __future__ import annotations

from typing import Sequence

from kgtool.core.types import (
    CandidateFact,
    Judgement,
)
from kgtool.reason.agents.offline.common import (
    GraphView,
    Thresholds,
    _endpoints,
    _Mentions,
    _Profiles,
    _subquestion_analysis,
    _token_coverage,
    same_name,
)
from kgtool.reason.relmatch import (
    RelationMatcher,
)
from kgtool.reason.offline_config import OFFLINE


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
        thresholds: Thresholds = Thresholds(),
        margin: float = OFFLINE.selector_margin,
    ):
        self.graph = graph
        self.matcher = matcher
        self.thresholds = thresholds
        self.profiles = _Profiles(graph, matcher)
        self.mentions = _Mentions(graph)
        self.fit_threshold = thresholds.fit
        self.margin = margin
        self.same_relation = thresholds.same_relation
        self.reverse_factor = thresholds.reverse_factor
        self.name_coverage = thresholds.name_coverage

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
            score = (OFFLINE.select_fit_weight * fit + OFFLINE.select_evidence_weight * ev_score
                     + OFFLINE.select_entity_weight * entity_ok + OFFLINE.select_loop_weight * loop_free) \
                * self.thresholds.source_prior(cand)
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
