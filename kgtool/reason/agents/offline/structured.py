"""Path search guided by the question's structure: hops explain its relation phrases in order.

`kgtool.reason.question` reads the question's relation phrases nearest-first. This
search walks the graph from the topic entity (a bounded beam, neighbourhoods read
through the GraphView in one call per depth) and scores each whole path against
those phrases:

* hop i explains the next one to three consecutive phrases (one relation said in
  several pieces: "the place of birth" is read as "birth", then "place"), scored by
  `PhraseScorer` against the hop's relation; a relation read against its
  direction counts `reverse_factor` of that;
* every phrase is explained once, in order; a hop may explain none (a link the
  question leaves implicit), at a price and never twice in a row;
* the answer-type hint ("which city") adds a small bonus to the last hop's relation.

Relative scores decide: the path whose relations fit the phrases best wins even
when a paraphrase fits only loosely; a phrase whose hop fits below `explains` is
still reported as unexplained, so callers can tell a confident reading from a guess.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from kgtool.core.types import CandidateFact
from kgtool.reason.agents.offline.common import _endpoints, relation_key
from kgtool.reason.kinds import is_kind, kinds_of
from kgtool.reason.agents.offline.kind_hops import kind_hops
from kgtool.reason.answer_kind import TIME_KINDS
from kgtool.reason.agents.offline.structured_rescore import rescore
from kgtool.reason.agents.offline.structured_roles import PhraseRoles
from kgtool.reason.question import DETERMINERS, QuestionReading, Segment
from kgtool.reason.relmatch import RelationProfile
from kgtool.reason.segmatch import PhraseScorer, merged_text
from kgtool.reason.offline_config import OFFLINE


@dataclass(frozen=True)
class StructuredHop:
    fact: CandidateFact
    key: str
    first: int  # index of the first segment it explains
    last: int  # one past the last (first == last: a silent hop)
    fits: tuple[float, ...]  # its relation's fit to each segment it explains (direction applied)

    @property
    def fit(self) -> float:
        return sum(self.fits)


@dataclass(frozen=True)
class StructuredPath:
    hops: tuple[StructuredHop, ...]
    entity_id: str
    visited: frozenset[str]
    consumed: int
    score: float
    silent: int = 0
    bonus: float = 0.0

    @property
    def total(self) -> float:
        return self.score + self.bonus


@dataclass(frozen=True)
class SearchSettings:
    beam_width: int = 12
    fanout: int = 4  # facts followed per (relation, direction) group
    max_merge: int = 2  # consecutive phrases one hop may explain
    hop_cost: float = OFFLINE.structured_hop_cost
    merge_cost: float = OFFLINE.merge_cost  # per extra phrase a hop explains as one with the others
    silent_cost: float = OFFLINE.silent_cost
    min_fit: float = OFFLINE.min_fit  # below this a hop does not explain its phrase at all
    split_fit: float = OFFLINE.split_fit  # a second hop for one phrase must fit one of its other words this well
    split_cost: float = OFFLINE.split_cost
    soft_cost: float = OFFLINE.soft_cost  # ending without a hop for a soft last phrase (the frame's verb)
    max_silent: int = 2
    reverse_factor: float = OFFLINE.reverse_factor
    expected_gain: float = 0.5  # what ranking the beam assumes each unexplained phrase will still earn
    type_weight: float = OFFLINE.type_weight
    explains: float = OFFLINE.structured_explains  # a hop fitting a phrase below this leaves it unexplained (a guess, not a reading)
    doer_fit: float = 0.5  # a verb saying what a relation's person does (PhraseRoles.says_doer): the check's bar
    max_hops: int = 6
    type_hop_fit: float = OFFLINE.type_hop_fit  # a hop for the answer's type word alone must fit it this well ...
    type_hop_margin: float = OFFLINE.type_hop_margin  # ... and this much better than the path's last relation fits it
    type_hop_paths: int = 6  # the best finished paths tried for such a hop


class StructuredSearch:
    """Beam search for the path that explains a question reading's phrases in order."""

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

    def search(self, reading: QuestionReading, topic_id: str) -> StructuredPath | None:
        self.read_roles(reading)
        segments = list(reading.required)
        n = len(segments)
        if not n:
            return None
        texts = self._texts(reading)
        type_text = self._type_text(reading)
        self.scorer.prepare(self.wanted(reading))
        soft_end = n > 1 and segments[-1].soft
        beam = [StructuredPath((), topic_id, frozenset([topic_id]), 0, 0.0)]
        finished: list[StructuredPath] = []
        for _depth in range(min(self.s.max_hops, n + self.s.max_silent)):
            # a path that has explained every phrase grows only by a second hop for its last one
            live = [p for p in beam if p.consumed < n or self._may_split(p)]
            if not live:
                break
            pools = self.neighbours([p.entity_id for p in live])
            grown: list[StructuredPath] = []
            for path in live:
                grown.extend(self._extend(path, pools.get(path.entity_id, []), texts, n))
            if not grown:
                break
            for path in grown:
                if path.consumed == n:
                    finished.append(self._with_type_bonus(path, type_text))
                elif soft_end and path.consumed == n - 1 and path.hops[-1].first < path.hops[-1].last:
                    ended = StructuredPath(path.hops, path.entity_id, path.visited, path.consumed,
                                           path.score - self.s.soft_cost, path.silent)
                    finished.append(self._with_type_bonus(ended, type_text))
            # rank by what a path has earned plus a typical gain for each phrase still to
            # explain (not the most it could gain, which would favour paths that explained less)
            grown.sort(key=lambda p: (p.score + (n - p.consumed) * self.s.expected_gain, -len(p.hops)),
                       reverse=True)
            seen: set[tuple] = set()
            beam = []
            for path in grown:
                sig = (path.entity_id, path.consumed, tuple(h.key for h in path.hops))
                if sig in seen:
                    continue
                seen.add(sig)
                beam.append(path)
                if len(beam) >= self.s.beam_width:
                    break
            # a path that has explained every phrase may still gain a split hop for its last one
            split_gain = 1.0 - self.s.hop_cost - self.s.split_cost
            if finished and max(p.total for p in finished) >= max(
                    (p.score + (n - p.consumed) + (split_gain if self._may_split(p) else 0.0) for p in beam),
                    default=float("-inf")):
                break  # no path still growing can beat the best finished one
        if not finished:
            return None
        finished += self._type_hops(finished, type_text)
        finished = kind_hops(self, finished, reading, type_text)
        if reading.answer_type in TIME_KINDS:
            # "when", "what year": a point in time is written with digits (the status rule's answer-kind
            # check); a path ending at a name ("born" read as the birthplace) answers something else
            finished = [p for p in finished if _has_digit(p)] or finished
        return max(finished, key=lambda p: (round(p.total, 6), -len(p.hops)))

    def _type_hops(self, finished: list[StructuredPath], type_text: str | None) -> list[StructuredPath]:
        """One more hop for the answer's type when the type names a relation of its own ("In which
        continent is the birthplace of T?": the birthplace is a city, and its continent one hop
        further). Taken only where a relation at the path's end fits the type word well
        (`type_hop_fit`) and clearly better than the path's last relation does (`type_hop_margin`):
        "Which city is the capital of T?" names only the capital's type. The hop reads its relation
        forwards: a relation the type word names ("country") names its objects, and read backwards it
        reaches what has one (a city of the country), not one. None from a path that already stands
        on an entity of that kind by the graph's own relations (kgtool.reason.kinds): the type word is said."""
        if not type_text:
            return []
        top = sorted(finished, key=lambda p: p.total, reverse=True)[: self.s.type_hop_paths]
        top = [p for p in top if p.hops and p.bonus < self.s.type_weight * (self.s.type_hop_fit - self.s.type_hop_margin)]
        if not top:
            return []
        pools = self.neighbours([p.entity_id for p in top])
        out = []
        for path in top:
            own = path.bonus / self.s.type_weight
            seen: set[tuple[str, str]] = set()
            pool = pools.get(path.entity_id, [])
            if is_kind(type_text, self._kinds(pool)):
                continue
            for fact in sorted(pool, key=self.prior, reverse=True):
                key = relation_key(fact)
                next_id = _endpoints(fact)[1][0]
                if (key, fact.direction) in seen or fact.head_id == fact.tail_id or next_id in path.visited:
                    continue
                if fact.direction == "in":
                    continue
                if self.prior(fact) < 1.0:
                    continue  # as for split hops: a word of the frame does not take a passage-read link
                seen.add((key, fact.direction))
                fit = self.scorer.score(type_text, self.profile_of(fact))
                if fit < self.s.type_hop_fit or fit - own < self.s.type_hop_margin:
                    continue
                step = self._step(path, fact, key, path.consumed, path.consumed, (), fit - self.s.hop_cost)
                out.append(StructuredPath(step.hops, step.entity_id, step.visited, step.consumed, step.score,
                                          path.silent, self.s.type_weight * fit))
        return out

    def rescore(self, reading: QuestionReading, facts: Sequence[CandidateFact]) -> tuple[float | None, int]:
        """What `search` would score a given chain of facts at (its best reading of the phrases in
        order: the same fits, costs, split hops, soft ending and type bonus or type hop), and how
        many required phrases that reading leaves unexplained (fit below `explains`, or no hop at
        all). The score is None when the chain cannot read every phrase in order; the count is then
        that of the reading that explains most. Lets a path another search found be weighed on
        this search's own scale."""
        return rescore(self, reading, facts)

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

    def _extend(self, path: StructuredPath, facts: list[CandidateFact], texts: dict, n: int) -> list[StructuredPath]:
        # a hop that explains a phrase may come back to an entity already on the path ("the
        # wife of T's husband" is T); an unnamed hop, a weak reading or a second hop for one
        # phrase may not, or paths would wander back and forth through links never named
        # (never over a fact the path already took: that is a U-turn, not a reading)
        groups: dict[tuple[str, str], list[CandidateFact]] = {}
        fresh: dict[tuple[str, str], list[CandidateFact]] = {}
        taken = {h.fact.fact_id for h in path.hops}
        # a relation followed straight back the other way ("the city whose mayor is the mayor of
        # T's birthplace") reaches a sibling, which no phrase asks for by naming the relation once
        back = (path.hops[-1].key, "in" if path.hops[-1].fact.direction == "out" else "out") if path.hops else None
        for fact in facts:
            if fact.head_id == fact.tail_id or fact.fact_id in taken:
                continue
            key = (relation_key(fact), fact.direction)
            if key == back:
                continue
            groups.setdefault(key, []).append(fact)
            if _endpoints(fact)[1][0] not in path.visited:
                fresh.setdefault(key, []).append(fact)
        k = path.consumed
        last_silent = bool(path.hops) and path.hops[-1].first == path.hops[-1].last
        # every reading of the next phrases by every relation here, then the source prior:
        # where a relation stated by edits or fact files explains them, relations only read
        # from passages do not compete (a document corpus must not overrule the graph's facts)
        options: list[tuple[str, list[CandidateFact], int, tuple[float, ...], float, bool]] = []
        settled: set[int] = set()
        doer = not self.roles.carried(path, k, n, self.profile_of)
        for (key, direction), members in groups.items():
            members = sorted(members, key=self.prior, reverse=True)[: self.s.fanout]
            prof = self.profile_of(members[0])
            factor = self.s.reverse_factor if direction == "in" else 1.0
            stated = self.prior(members[0]) >= 1.0
            for j in range(k + 1, min(n, k + self.s.max_merge) + 1):
                if (k, j) not in texts:
                    continue
                fits, gain = self._group(texts[(k, j)], prof, factor, (k, j), direction, doer=doer)
                if gain == float("-inf"):
                    continue
                options.append((key, members, j, fits, gain, stated))
                if stated and min(fits) >= self.s.explains:
                    settled.add(j)
        out: list[StructuredPath] = []
        out += self._splits(path, fresh, texts, self._kinds(facts))
        for key, members, j, fits, gain, stated in options:
            if not stated and j in settled:
                continue
            for fact in members:
                if min(fits) < self.s.explains and _endpoints(fact)[1][0] in path.visited:
                    continue  # back to an entity on the path only for a phrase the hop reads well
                gain_f = gain * self.prior(fact) if gain > 0 else gain
                out.append(self._step(path, fact, key, k, j, fits, gain_f))
        if path.silent < self.s.max_silent and not last_silent and k < n:
            for (key, _direction), members in fresh.items():
                for fact in sorted(members, key=self.prior, reverse=True)[: self.s.fanout]:
                    out.append(self._step(path, fact, key, k, k, (), -self.s.silent_cost))
        return out

    @staticmethod
    def _may_split(path: StructuredPath) -> bool:
        if not path.hops or path.hops[-1].last - path.hops[-1].first != 1:
            return False  # a silent hop, or one explaining several phrases
        last = path.hops[-1]
        # one phrase, two relations at most
        return not (len(path.hops) > 1 and (path.hops[-2].first, path.hops[-2].last) == (last.first, last.last))

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

    def _splits(self, path: StructuredPath, groups: dict, texts: dict, kinds: frozenset[str]) -> list[StructuredPath]:
        """A second hop for the phrase the last hop explained, when that phrase names two
        relations in different words ("which continent does ... originate from": the
        country of origin, then its continent). The new hop must fit a word the last hop
        does not explain, and fit it well (`split_fit`); a word naming a kind the entity the
        last hop reached already is ("the country T is a citizen of", at a country) is said by
        that entity, not by a hop."""
        if not self._may_split(path):
            return []
        last = path.hops[-1]
        words = texts[(last.first, last.last)][1].split()
        if len(words) < 2:
            return []
        last_prof = self.profile_of(last.fact)
        taken = max(words, key=lambda w: self.scorer.score(w, last_prof))
        rest = [w for w in words if w != taken and not is_kind(w, kinds)]
        if not rest:
            return []
        self.scorer.prepare([(w, True) for w in rest])
        out = []
        for (key, direction), members in groups.items():
            if key == last.key:
                continue
            prof = self.profile_of(members[0])
            factor = self.s.reverse_factor if direction == "in" else 1.0
            fit = max(factor * self.scorer.score(w, prof) for w in rest)
            if fit < self.s.split_fit or (self.prior(members[0]) < 1.0):
                continue
            for fact in sorted(members, key=self.prior, reverse=True)[: self.s.fanout]:
                step = self._step(path, fact, key, last.first, last.last, (fit,),
                                  fit - self.s.hop_cost - self.s.split_cost)
                out.append(step)
        return out

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


def _has_digit(path: StructuredPath) -> bool:
    """Is the entity the path ends at written with a digit (a date, a year, a count)?"""
    fact = path.hops[-1].fact
    name = fact.head if fact.direction == "in" else fact.tail
    return any(ch.isdigit() for ch in name or "")


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
