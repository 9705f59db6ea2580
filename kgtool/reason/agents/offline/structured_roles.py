"""Who does what to whom, as the structured search (structured.py) reads it for one question.

The roles each required phrase of a question reading gives its answer (kgtool.reason.roles), and the
two rules the search takes from them, the same the status rule's reading check applies
(kgtool.reason.explains): a hop whose relation gives the answer a role the phrase rules out does not
explain it, and a verb that says what the person a noun relation names does ("who runs X" against "X
has ceo Y", WordNet's Lexicon.says_doer) does, at the check's bar, though the words share nothing.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from kgtool.core.types import CandidateFact
from kgtool.reason.question import QuestionReading
from kgtool.reason.relmatch import RelationProfile
from kgtool.reason.roles import conflict, relation_role, says_doer, says_part_of, segment_role, shares_verb_sense

if TYPE_CHECKING:
    from kgtool.reason.agents.offline.structured_path import SearchSettings, StructuredPath
    from kgtool.reason.segmatch import PhraseScorer


class PhraseRoles:
    """The roles of one reading's required phrases, and the search's rules read from them."""

    def __init__(self, reading: QuestionReading, scorer: PhraseScorer, settings: SearchSettings):
        self.segments = list(reading.required)
        self.roles = [(segment_role(seg, reading.topic), seg.content) for seg in self.segments]
        self.scorer = scorer
        self.s = settings

    def against(self, span: tuple[int, int], prof: RelationProfile, direction: str) -> bool:
        """Does the relation, read `direction`, give the answer of a phrase in `span` a role the phrase
        rules out ("which company acquired X" read along X's own "acquired" fact: X is the acquirer)?
        Such a hop does not explain the phrase, however close its words (the status rule's check too)."""
        relation = relation_role(prof.label or prof.key, prof.templates)
        if relation.head is None and relation.tail is None:
            # a noun label gets a role only by sharing a stem with the phrase's verb, and not every such
            # noun names the doer ("headquarters"): the search steers by what a verb phrasing says
            return False
        for role, words in self.roles[span[0]:span[1]]:
            synonym = role.adverbial and shares_verb_sense(words, relation, self.scorer.lexicon)
            if conflict(role, relation, direction, synonym_verb=synonym):
                return True
        return False

    def says_doer(self, k: int, prof: RelationProfile, direction: str) -> bool:
        """Does phrase k's verb say what the person the relation's noun names does, with the answer on the
        person's side (kgtool.reason.roles.says_doer, the reading check's own rule)? The words share
        nothing, so the scorer alone reads such a hop as a link never named."""
        if k >= len(self.segments):
            return False
        relation = relation_role(prof.label or prof.key, prof.templates)
        return says_doer(self.segments[k], self.roles[k][0], relation, prof.label or prof.key, direction,
                         self.scorer.lexicon)

    def carried(self, path: StructuredPath, k: int, n: int,
                profile_of: Callable[[CandidateFact], RelationProfile]) -> bool:
        """Is phrase k the soft frame verb completing the relation of the phrase before it, which says only
        part of the path's last relation ("Who leads | the government of T" at the head of government)? It
        then names no hop of its own, whatever a relation further on is the doer of."""
        segments = self.segments
        if k != n - 1 or k < 1 or not segments[k].soft or not path.hops or path.hops[-1].last != k:
            return False
        prof = profile_of(path.hops[-1].fact)
        return says_part_of(segments[k - 1].content, prof.label or prof.key)


__all__ = ["PhraseRoles"]
