"""Edit-Anchored Triple Refinement (EATR, from the CARE paper).

For an edit e = (s, r, o -> o*), a candidate triple (h, r_c, t) extracted from
the edit's description is kept only if

1. endpoint alignment: the canonical id of h is the id of s and the canonical
   id of t is the id of o*, and
2. relation consistency: cos(e(r_c), e(r)) >= delta_rel (0.80 by default).

Every candidate gets a Decision (kept / head_mismatch / tail_mismatch /
relation_inconsistent, with the cosine), so runs can be counted and audited.
With enabled=False (the paper's "w/o EATR" ablation) all candidates are kept
with reason "no_eatr".
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

import numpy as np

from kgtool.errors import ConfigError, InputError
from kgtool.ingest.linking import Gazetteer, canonical_id, normalize
from kgtool.ingest.records import Candidate, Decision, EditRecord
from kgtool.models.embed import CachedEmbedder, Embedder, get_embedder

if TYPE_CHECKING:  # pragma: no cover
    from kgtool.config import Settings

KEPT = "kept"
HEAD_MISMATCH = "head_mismatch"
TAIL_MISMATCH = "tail_mismatch"
RELATION_INCONSISTENT = "relation_inconsistent"
NO_EATR = "no_eatr"
REASONS = (KEPT, HEAD_MISMATCH, TAIL_MISMATCH, RELATION_INCONSISTENT, NO_EATR)


class _Anchor:
    """Canonical ids of one edit's endpoints and the names that denote them.

    Names of the edit's own entities (including aliases) are matched first:
    a mention inside an edit description most likely means that edit's
    entity even when another corpus entity shares the name. Alias sets are
    built only when the primary name does not match, which keeps the common
    case (the extractor copies the names) cheap.
    """

    __slots__ = (
        "edit",
        "subject_id",
        "object_id",
        "_subject_key",
        "_object_key",
        "_subject_aliases",
        "_object_aliases",
    )

    def __init__(self, edit: EditRecord):
        self.edit = edit
        self.subject_id = canonical_id(edit.subject, edit.subject_id)
        self.object_id = canonical_id(edit.object, edit.object_id)
        self._subject_key = normalize(edit.subject)
        self._object_key = normalize(edit.object)
        self._subject_aliases: frozenset[str] | None = None
        self._object_aliases: frozenset[str] | None = None

    def _is_subject(self, key: str) -> bool:
        if key == self._subject_key:
            return True
        if self._subject_aliases is None:
            self._subject_aliases = frozenset(normalize(a) for a in self.edit.subject_aliases)
        return key in self._subject_aliases

    def _is_object(self, key: str) -> bool:
        if key == self._object_key:
            return True
        if self._object_aliases is None:
            self._object_aliases = frozenset(normalize(a) for a in self.edit.object_aliases)
        return key in self._object_aliases

    def resolve(self, name: str, link: Callable[[str], str | None], *, as_head: bool) -> str | None:
        key = normalize(name)
        checks = (
            ((self._is_subject, self.subject_id), (self._is_object, self.object_id))
            if as_head
            else ((self._is_object, self.object_id), (self._is_subject, self.subject_id))
        )
        for matches, entity_id in checks:
            if matches(key):
                return entity_id
        linked = link(name)
        if linked is not None:
            return linked
        try:
            return canonical_id(name)
        except InputError:
            return None


class Eatr:
    """EATR over edits and their extracted candidates.

    The embedder is only needed (and only loaded) when a candidate relation
    differs from the anchor relation as a string; identical strings have
    cosine 1 by definition, so the anchor extractor never touches a model.
    """

    def __init__(
        self,
        embedder: Embedder | None = None,
        gazetteer: Gazetteer | Callable[[], Gazetteer] | None = None,
        *,
        delta_rel: float = 0.80,
        enabled: bool = True,
        embedder_spec: str = "auto",
    ):
        if not -1.0 <= delta_rel <= 1.0:
            raise ConfigError(f"delta_rel must be a cosine between -1 and 1, got {delta_rel}")
        self.delta_rel = float(delta_rel)
        self.enabled = enabled
        # a callable builds the gazetteer on first need: candidates that name their
        # edit's own entities (all of the anchor extractor's) never need one
        self._gazetteer = gazetteer if gazetteer is not None else Gazetteer()
        self.embedder_spec = embedder_spec
        self._embedder: CachedEmbedder | None = None
        if embedder is not None:
            self._embedder = embedder if isinstance(embedder, CachedEmbedder) else CachedEmbedder(embedder)

    @classmethod
    def from_settings(cls, settings: Settings, gazetteer: Gazetteer | None = None, *, enabled: bool = True) -> Eatr:
        return cls(gazetteer=gazetteer, delta_rel=settings.delta_rel, enabled=enabled, embedder_spec=settings.embedder)

    @property
    def gazetteer(self) -> Gazetteer:
        if not isinstance(self._gazetteer, Gazetteer):
            self._gazetteer = self._gazetteer()
        return self._gazetteer

    def _link(self, mention: str) -> str | None:
        return self.gazetteer.link(mention)

    @property
    def embedder(self) -> CachedEmbedder:
        if self._embedder is None:
            self._embedder = CachedEmbedder(get_embedder(self.embedder_spec))
        return self._embedder

    def refine(self, edit: EditRecord, candidates: Sequence[Candidate]) -> list[Decision]:
        return self.refine_batch([edit], [candidates])[0]

    def refine_batch(
        self, edits: Sequence[EditRecord], candidates_per_edit: Sequence[Sequence[Candidate]]
    ) -> list[list[Decision]]:
        """Decisions for every candidate of every edit; the embedder is called at most once."""
        if len(edits) != len(candidates_per_edit):
            raise ConfigError(
                f"refine_batch got {len(edits)} edits but {len(candidates_per_edit)} candidate lists; pass one list per edit"
            )
        anchors = [_Anchor(edit) for edit in edits]
        endpoints = [
            [
                (a.resolve(c.head, self._link, as_head=True), a.resolve(c.tail, self._link, as_head=False))
                for c in candidates
            ]
            for a, candidates in zip(anchors, candidates_per_edit)
        ]
        if not self.enabled:
            return [
                [Decision(a.edit.id, c, True, NO_EATR, None, h, t) for c, (h, t) in zip(candidates, ends)]
                for a, candidates, ends in zip(anchors, candidates_per_edit, endpoints)
            ]
        self._warm(edits, candidates_per_edit)
        return [
            [self._decide(a, c, h, t) for c, (h, t) in zip(candidates, ends)]
            for a, candidates, ends in zip(anchors, candidates_per_edit, endpoints)
        ]

    def _warm(self, edits: Sequence[EditRecord], candidates_per_edit: Sequence[Sequence[Candidate]]) -> None:
        """Encode, in one call, every relation string this batch compares and the cache lacks."""
        needed: list[str] = []
        for edit, candidates in zip(edits, candidates_per_edit):
            differing = [c.relation for c in candidates if c.relation != edit.relation]
            if differing:
                needed.append(edit.relation)
                needed.extend(differing)
        if needed:
            self.embedder.warm(needed)

    def relation_cosine(self, candidate_relation: str, anchor_relation: str) -> float:
        if candidate_relation == anchor_relation:
            return 1.0
        a = self.embedder.vector(candidate_relation)
        b = self.embedder.vector(anchor_relation)
        return float(np.dot(a, b))

    def _decide(self, anchor: _Anchor, candidate: Candidate, head_id: str | None, tail_id: str | None) -> Decision:
        cos = self.relation_cosine(candidate.relation, anchor.edit.relation)
        if head_id != anchor.subject_id:
            reason = HEAD_MISMATCH
        elif tail_id != anchor.object_id:
            reason = TAIL_MISMATCH
        elif cos < self.delta_rel:
            reason = RELATION_INCONSISTENT
        else:
            reason = KEPT
        return Decision(anchor.edit.id, candidate, reason == KEPT, reason, cos, head_id, tail_id)


def count_reasons(decisions: Iterable[Decision] | Iterable[Sequence[Decision]]) -> Counter:
    """How many decisions had each reason (accepts a flat or a per-edit nested list)."""
    counts: Counter = Counter()
    for item in decisions:
        if isinstance(item, Decision):
            counts[item.reason] += 1
        else:
            counts.update(d.reason for d in item)
    return counts
