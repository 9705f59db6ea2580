"""The offline generator: a fallback hop answer read off local evidence."""
from __future__ import annotations

from typing import Sequence

from kgtool.core.text import tokenize
from kgtool.reason.agents.offline.common import (
    GraphView,
    Thresholds,
    _Mentions,
    _placeholder_spans,
    same_name,
)
from kgtool.reason.relmatch import RelationMatcher, RelationProfile, TextAnalysis


class OfflineGenerator:
    """Fallback hop answer read off local evidence, or None.

    A sentence supports an answer when it names the entity, and the words
    joining the entity to another mention express what the sub-question asks
    (matched like a relation phrase). The other mention is the answer; with a
    graph it is linked and returned by its canonical name, without one the
    answer is the sentence's tail after the joining words.
    """

    def __init__(self, graph: GraphView | None, matcher: RelationMatcher, *, thresholds: Thresholds = Thresholds()):
        self.graph = graph
        self.matcher = matcher
        self.mentions = _Mentions(graph)
        self.threshold = thresholds.fit

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
