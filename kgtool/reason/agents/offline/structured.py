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

from typing import Sequence

from kgtool.core.types import CandidateFact
from kgtool.reason.agents.offline.common import _endpoints, relation_key
from kgtool.reason.agents.offline.kind_hops import kind_hops
from kgtool.reason.agents.offline.structured_path import SearchSettings, StructuredHop, StructuredPath
from kgtool.reason.agents.offline.structured_rescore import rescore
from kgtool.reason.agents.offline.structured_scoring import HopScoring
from kgtool.reason.answer_kind import TIME_KINDS
from kgtool.reason.kinds import is_kind
from kgtool.reason.question import QuestionReading


class StructuredSearch(HopScoring):
    """Beam search for the path that explains a question reading's phrases in order."""

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


def _has_digit(path: StructuredPath) -> bool:
    """Is the entity the path ends at written with a digit (a date, a year, a count)?"""
    fact = path.hops[-1].fact
    name = fact.head if fact.direction == "in" else fact.tail
    return any(ch.isdigit() for ch in name or "")


__all__ = ["SearchSettings", "StructuredHop", "StructuredPath", "StructuredSearch"]
