"""The structured search's values: a path of hops, each the phrases it explains, and the search's settings.

Apart from the search (structured.py) and its scoring (structured_scoring.py) because the modules that
read phrase roles (structured_roles.py) and add hops to a kind (kind_hops.py) build and read paths too.
"""
from __future__ import annotations

from dataclasses import dataclass

from kgtool.core.types import CandidateFact
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


__all__ = ["SearchSettings", "StructuredHop", "StructuredPath"]
