"""How the structured search reads a path's hops against a question's phrases: fits, costs and bonuses.

The search (structured.py) grows its beam by these scores; `rescore` (structured_rescore.py) and the
hops to an asked kind (kind_hops.py) read a given chain or one more hop by the same ones, so the three
weigh paths on one scale without depending on the beam.
"""
from __future__ import annotations

import re
from typing import Callable, Sequence

from kgtool.core.types import CandidateFact
from kgtool.reason.agents.offline.common import _endpoints
from kgtool.reason.agents.offline.structured_path import SearchSettings, StructuredHop, StructuredPath
from kgtool.reason.agents.offline.structured_roles import PhraseRoles
from kgtool.reason.kinds import is_kind, kinds_of
from kgtool.reason.question import DETERMINERS, QuestionReading, Segment
from kgtool.reason.relmatch import RelationProfile
from kgtool.reason.segmatch import PhraseScorer, merged_text


class HopScoring:
    """A hop's fit to the phrases it explains, and what it gains or costs a path (see structured.py)."""

    def __init__(self, scorer: PhraseScorer, profile_of: Callable[[CandidateFact], RelationProfile],
                 neighbours: Callable[[Sequence[str]], dict[str, list[CandidateFact]]],
                 settings: SearchSettings = SearchSettings(), prior: Callable[[CandidateFact], float] | None = None):
        self.scorer = scorer
        self.profile_of = profile_of
        self.neighbours = neighbours
        self.s = settings
        self.prior = prior or (lambda fact: 1.0)

    def read_roles(self, reading: QuestionReading) -> None:
        """The role each required phrase gives its answer (kgtool.reason.roles), for `_group`."""
        self.roles = PhraseRoles(reading, self.scorer, self.s)

    def _kinds(self, pool: Sequence[CandidateFact]) -> frozenset[str]:
        return kinds_of(pool, lambda fact: self.profile_of(fact).label or fact.relation)

    def _type_bonus(self, fact: CandidateFact, type_text: str | None) -> float:
        if not type_text:
            return 0.0
        fit = self.scorer.score(type_text, self.profile_of(fact))
        return self.s.type_weight * fit * (self.s.reverse_factor if fact.direction == "in" else 1.0)

    def _texts(self, reading: QuestionReading) -> dict[tuple[int, int], tuple[list[str], str]]:
        """(i, j) -> the texts of phrases i..j-1 alone and said together (at most max_merge
        phrases, of which at most one with an article or possessive of its own: see Segment.bare)."""
        segments = reading.required
        n = len(segments)
        singles = [merged_text([seg]) for seg in segments]
        return {(i, j): (singles[i:j], _said_together(reading.question, segments, i, j)) for i in range(n)
                for j in range(i + 1, min(n, i + self.s.max_merge) + 1)
                if j == i + 1 or sum(not seg.bare for seg in segments[i:j]) <= 1}

    def wanted(self, reading: QuestionReading) -> list[tuple[str, bool]]:
        """The (phrase, parts) pairs a search of this reading scores (PhraseScorer.prepare's input)."""
        texts = self._texts(reading)
        out = [(parts[0], True) for (i, j), (parts, _whole) in texts.items() if j == i + 1]
        out += [(whole, False) for (i, j), (_parts, whole) in texts.items() if j > i + 1]
        type_text = self._type_text(reading)
        # the words of a phrase alone: what a second hop for the phrase is scored on (_splits)
        words = [(w, True) for parts, whole in texts.values() if len(parts) == 1 and " " in whole
                 for w in whole.split()]
        return out + ([(type_text, True)] if type_text else []) + words

    def _split_fit(self, whole: str, last_prof: RelationProfile, prof: RelationProfile, factor: float,
                   kinds: frozenset[str]) -> float:
        """How well a second relation fits a word of a phrase the last hop explained, other than
        the word that hop's relation fits best and the kinds the entity it reached is (0 for a
        one-word phrase)."""
        words = whole.split()
        if len(words) < 2:
            return 0.0
        taken = max(words, key=lambda w: self.scorer.score(w, last_prof))
        rest = [w for w in words if w != taken and not is_kind(w, kinds)]
        if not rest:
            return 0.0
        self.scorer.prepare([(w, True) for w in rest])
        return max(factor * self.scorer.score(w, prof) for w in rest)

    def _group(self, texts: tuple[list[str], str], prof: RelationProfile, factor: float,
               span: tuple[int, int] | None = None, direction: str = "out", *, doer: bool = True
               ) -> tuple[tuple[float, ...], float]:
        """A hop's fit to each of one or more consecutive phrases, and what it gains the path.

        One phrase: its fit, less the hop's cost. Several, a relation said in pieces
        ("place" + "birth"): only when the phrases together fit better than the best of
        them alone, each counts the joint fit, at `merge_cost` per extra phrase; a phrase
        that fits a relation of its own is better explained by that relation's hop.
        """
        parts, whole = texts
        roles = getattr(self, "roles", None)
        if span is not None and roles is not None and roles.against(span, prof, direction):
            return (0.0,) * len(parts), float("-inf")
        singles = tuple(factor * self.scorer.score(p, prof) for p in parts)
        # the doer reading is a verb's ("who runs T" against "has ceo"); a phrase that also names something
        # ("song performed by Nova Reyes was recorded") states a fact of that name, which no doer reads
        if len(parts) == 1 and span is not None and doer and roles is not None and singles[0] < self.s.doer_fit \
                and not any(word[:1].isupper() for word in parts[0].split()) \
                and roles.says_doer(span[0], prof, direction):
            singles = (self.s.doer_fit,)
        if len(parts) == 1:
            # a hop that barely fits its phrase costs what an unnamed hop costs: it is no cheaper
            # way to cross a link the question does not name
            cost = self.s.hop_cost if singles[0] >= self.s.min_fit else self.s.silent_cost
            return singles, singles[0] - cost
        joint = factor * self.scorer.score(whole, prof, parts=False)
        if joint >= max(singles) and joint >= self.s.min_fit:  # equal when both saturate (1.0)
            return (joint,) * len(parts), len(parts) * joint - self.s.hop_cost - (len(parts) - 1) * self.s.merge_cost
        return singles, float("-inf")

    @staticmethod
    def _step(path: StructuredPath, fact: CandidateFact, key: str, first: int, last: int,
              fits: tuple[float, ...], gain: float) -> StructuredPath:
        next_id = _endpoints(fact)[1][0]
        return StructuredPath(
            (*path.hops, StructuredHop(fact, key, first, last, fits)),
            next_id,
            path.visited | {next_id},
            last,
            path.score + gain,
            path.silent + (1 if first == last else 0),
        )

    def _type_text(self, reading: QuestionReading) -> str | None:
        optional = [s for s in reading.segments if s.optional and s.content]
        if optional and not any(s.content and not s.optional for s in reading.segments[
                reading.segments.index(optional[-1]):]):
            # the answer's type is said last ("the country whose capital is T" types an inner hop's answer)
            return " ".join(optional[-1].content)
        if reading.answer_type == "place":
            return reading.answer_type  # "where ...": the answer is a place, whatever the frame's verb
        return None

    def _with_type_bonus(self, path: StructuredPath, type_text: str | None) -> StructuredPath:
        if not type_text or not path.hops:
            return path
        return StructuredPath(path.hops, path.entity_id, path.visited, path.consumed, path.score, path.silent,
                              self._type_bonus(path.hops[-1].fact, type_text))

    def unexplained(self, reading: QuestionReading, path: StructuredPath | None) -> list[str]:
        """The required phrases no hop of the path explains with at least `explains` fit."""
        segments: Sequence[Segment] = reading.required
        if path is None:
            return [s.text for s in segments]
        covered = set()
        for hop in path.hops:
            covered.update(i for i, f in zip(range(hop.first, hop.last), hop.fits) if f >= self.s.explains)
        n = len(segments)
        if path.consumed < n and path.hops and (n - 2) in covered:
            # a soft last phrase without a hop of its own: explained if the last hop's relation
            # reads well with it ("leads" + "government")
            parts = [merged_text([segments[n - 2]]), merged_text([segments[n - 1]])]
            fit = self.scorer.group_score(parts, merged_text(segments[n - 2:]), self.profile_of(path.hops[-1].fact))
            if fit >= self.s.explains:
                covered.add(n - 1)
        return [s.text for i, s in enumerate(segments) if i not in covered]


_WORD = re.compile(r"\w+(?:[-/.]\w+)*")


def _said_together(question: str, segments: Sequence[Segment], i: int, j: int) -> str:
    """Phrases i..j-1 as the question says them together ("city of birth", "person who leads the
    government"): the words from the first to the last, articles and punctuation left out, when
    no other phrase's word stands among them; else their content words in question order."""
    spans = [sp for seg in segments[i:j] for sp in seg.spans]
    if j == i + 1 or not spans:
        return merged_text(segments[i:j])
    lo, hi = min(s for s, _e in spans), max(e for _s, e in spans)
    others = [sp for k, seg in enumerate(segments) if not i <= k < j for sp in seg.spans]
    if any(lo <= s < hi for s, _e in others):
        return merged_text(segments[i:j])
    words = [m.group() for m in _WORD.finditer(question[lo:hi]) if m.group().lower() not in DETERMINERS]
    return " ".join(words) if words else merged_text(segments[i:j])


__all__ = ["HopScoring"]
