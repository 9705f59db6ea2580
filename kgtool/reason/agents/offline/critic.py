"""The offline critic: audits a chain hop by hop and names the first hop that breaks."""
from __future__ import annotations

from typing import Sequence

from kgtool.core.text import tokenize
from kgtool.core.types import (
    ChainLink,
    Verdict,
)
from kgtool.reason.agents.offline.common import (
    GraphView,
    Thresholds,
    _endpoints,
    _Mentions,
    _name_spans,
    _Profiles,
    _subquestion_analysis,
    same_name,
)
from kgtool.reason.relmatch import RelationMatcher


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
        thresholds: Thresholds = Thresholds(),
    ):
        self.graph = graph
        self.matcher = matcher
        self.profiles = _Profiles(graph, matcher)
        self.mentions = _Mentions(graph)
        self.fit_threshold = thresholds.fit
        self.same_relation = thresholds.same_relation
        self.name_coverage = thresholds.name_coverage

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
