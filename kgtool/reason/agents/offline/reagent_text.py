"""Text as evidence for ReAgent's offline decomposer: passages read as one-hop links.

ReAgent's retriever draws on the knowledge graph and on text. When the
graph-guided plan cannot account for the whole question (a fact it needs is
missing from the graph), the decomposer is challenged to look again with
text in view: each sentence of a passage that names an entity and another
known entity becomes a link between them, its relation being the words that
join the two names ("The director of {} is {}"). The offline planner then
searches graph facts and such links alike, so a hop the graph lacks can be
crossed on a sentence that states it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from kgtool.core.text import normalize, tokenize
from kgtool.core.types import CandidateFact, PassageHit
from kgtool.reason.agents.offline.common import (
    GraphView,
    _name_spans,
    embed_relations,
    first_per_group,
    relation_key,
)
from kgtool.reason.agents.offline.text_reader import locate
from kgtool.reason.relmatch import phrase_core
from kgtool.retrieve.passages import lucene_query

TEXT_KEY = "text:"  # relation keys of links read off a sentence
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


@dataclass
class PassageFact(CandidateFact):
    """A link read off one sentence of a Passage; the trace stores it as that Passage."""

    passage_id: str = ""
    stated: bool = False  # read off a passage: no edit or fact file states it

    kind = "passage"

    @property
    def id(self) -> str:
        return self.passage_id


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text or "") if s.strip()]


def _sentence_spans(text: str) -> list[tuple[int, str]]:
    """(start offset, sentence) for the sentences `sentences` gives."""
    out, at = [], 0
    for piece in _SENTENCE_END.split(text or ""):
        start = text.find(piece, at) if piece else at
        at = start + len(piece)
        stripped = piece.strip()
        if stripped:
            out.append((start + (len(piece) - len(piece.lstrip())), stripped))
    return out


def is_text_key(key: str | None) -> bool:
    return bool(key) and key.startswith(TEXT_KEY)


class TextLinks:
    """Links read off the passages that name an entity, read once per entity and answer.

    The passages of several entities are read in one statement (`prefetch`); the
    links are read off them only when an entity's links are asked for.
    max_connector: a sentence whose joining words hold more content words than
    this says more than one relation, so it yields no link.
    """

    def __init__(self, view: GraphView, *, passages: int = 20, max_connector: int = 6, warm=None):
        self.warm = warm  # strings -> None: embeds the links' relations in one call (the matcher's encoder)
        self._entities: dict[str, list[dict]] = {}  # passage id -> the entities it mentions
        # entity id -> primary name, from those mention rows (e.name, what view.entity_name reads): asking
        # entity_name per link cost a round trip per entity new to the process, ~60 an answer
        self._names: dict[str, str] = {}
        self.view = view  # the answer's graph view: the passages of its scope, read in its session
        self.passages = passages
        self.max_connector = max_connector
        self._links: dict[str, list[PassageFact]] = {}
        self._hits: dict[str, list[PassageHit]] = {}  # entity id -> the passages its name finds
        self.labels: dict[str, str] = {}  # text relation key -> its joining words

    def entity_name(self, entity_id: str) -> str:
        name = self._names.get(entity_id)
        return name if name is not None else self.view.entity_name(entity_id)

    def of(self, entity_id: str) -> list[PassageFact]:
        if entity_id not in self._links:
            self.prefetch([entity_id])
            self._links.setdefault(entity_id, [])
        return [PassageFact(**vars(f)) for f in self._links[entity_id]]

    def prefetch(self, entity_ids) -> None:
        """Read the passages naming each entity not read yet, all in one statement."""
        names = {e: self.entity_name(e) for e in dict.fromkeys(entity_ids) if e not in self._hits}
        queries = [{"entity_id": e, "query": lucene_query(n)} for e, n in names.items() if n]
        queries = [q for q in queries if q["query"]]  # a name of no content word finds nothing
        self._hits.update({e: [] for e in names})
        if not queries:
            return
        self._hits.update(self.view.passages_naming(queries, self.passages))
        # the passages' mentions as ingestion recorded them, in one read: running the linker over
        # every sentence cost ~30 ms a sentence and a lookup round trip per new word run
        fresh = [h.passage_id for e in names for h in self._hits.get(e, []) if h.passage_id not in self._entities]
        if fresh:
            got = self.view.passage_entities(fresh)
            for pid in fresh:
                self._entities[pid] = got.get(pid, [])
                self._names.update((e["id"], e["name"]) for e in self._entities[pid] if e.get("name") is not None)
        for e in names:
            if e not in self._links:
                self._links[e] = self._read(e)
        if self.warm is not None:
            # one embedder call for every new link's relation, not one per relation as the planner meets it
            self.warm([phrase_core(label) for label in self.labels.values()])

    def _read(self, entity_id: str) -> list[PassageFact]:
        name = self.entity_name(entity_id)
        if not name:
            return []
        hits = self._hits.get(entity_id, [])
        out: list[PassageFact] = []
        seen: set[tuple[str, str]] = set()
        for hit in hits:
            located = locate(hit.text or "", self._entities.get(hit.passage_id, []))
            for k, (start, sentence) in enumerate(_sentence_spans(hit.text)):
                mentions = [(s - start, e - start, eid, surface) for s, e, eid, surface in located
                            if start <= s and e <= start + len(sentence)]
                for link in self._links_in(sentence, mentions, entity_id, name, hit.passage_id, k):
                    if (link.tail_id, link.relation_id) not in seen:
                        seen.add((link.tail_id, link.relation_id))
                        out.append(link)
        return out

    def _links_in(self, sentence: str, mentions: list, entity_id: str, name: str, passage_id: str,
                  k: int) -> list[PassageFact]:
        own = _name_spans(sentence, [name]) or [(s, e) for s, e, eid, _ in mentions if eid == entity_id]
        if not own:
            return []
        out = []
        # the sentence is tokenised once, then each pair's names are cut out of its tokens, as tokenize's
        # `exclude` cuts them (a token's fields do not depend on what is excluded): tokenising it again
        # per pair of names was ~8 % of a ReAgent answer
        words = tokenize(sentence)
        without_own = [t for t in words if not any(s <= t.start < e or s < t.end <= e for s, e in own)]
        for start, end, other_id, _surface in mentions:
            if other_id == entity_id or any(s < end and start < e for s, e in own):
                continue
            kept = [t for t in without_own if not (start <= t.start < end or start < t.end <= end)]
            if not kept or sum(t.content for t in kept) > self.max_connector or not any(t.content for t in kept):
                continue
            connector = " ".join(t.text for t in kept)
            key = TEXT_KEY + normalize(connector)
            self.labels[key] = connector
            out.append(PassageFact(
                fact_id=f"{passage_id}#{k}:{other_id}", passage_id=passage_id, head_id=entity_id, head=name,
                relation=connector, relation_id=key, tail_id=other_id,
                tail=self.entity_name(other_id),
                evidence=sentence, direction="out"))
        return out


class TextAugmentedView:
    """A GraphView whose neighbourhoods also hold the links read off passages (see TextLinks)."""

    def __init__(self, view: GraphView, links: TextLinks):
        self.view = view
        self.links = links

    @property
    def session(self):
        return getattr(self.view, "session", None)

    def neighborhoods(self, entity_ids: Sequence[str], per_group: int) -> dict[str, list[CandidateFact]]:
        ids = list(dict.fromkeys(entity_ids))
        # The challenged plan searches much of what the first plan searched: an entity whose whole
        # pool this answer already read (the view's memo) is cut to per_group per (relation,
        # direction) here, as the database would cut it, instead of being read again
        memo = getattr(self.view, "memo", None) or {}
        self.links.prefetch(ids)  # this level's passages in one read, not one per entity
        pools = {e: [c.copy() for c in first_per_group(memo[e], per_group)] for e in ids if e in memo}
        missing = [e for e in ids if e not in pools]
        if missing:
            pools.update(self.view.neighborhoods(missing, per_group))
        out = {e: [*pools.get(e, []), *self.links.of(e)] for e in ids}
        if self.links.warm is not None:
            # the planner and selector build a relation profile per distinct relation they meet, one
            # embedder call each (a document store has thousands of relations read off passages):
            # embedding this level's phrasings in one call first leaves them cache hits
            keys = {relation_key(f): f.relation for pool in out.values() for f in pool}
            cores = [core for key, label in keys.items()
                     for core in (phrase_core(p) for p in [label, *self.relation_phrases(key)]) if core]
            encoder = getattr(self.links.warm, "__self__", None)  # warm is the matcher's encoder.encode
            if encoder is not None and hasattr(encoder, "put"):
                # the graph relations' label vectors ingestion stored are read, not embedded again
                embed_relations(encoder, self, set(keys), cores)
            else:
                self.links.warm(cores)
        return out

    def link_mentions(self, text: str):
        return self.view.link_mentions(text)

    def entity_name(self, entity_id: str) -> str:
        return self.links.entity_name(entity_id)

    def relation_vectors(self, keys, model: str) -> dict:
        stored = getattr(self.view, "relation_vectors", None)
        return stored([k for k in keys if not is_text_key(k)], model) if stored is not None else {}

    def relation_phrases(self, relation_key: str) -> list[str]:
        if is_text_key(relation_key):
            label = self.links.labels.get(relation_key)
            return [label] if label else []
        return self.view.relation_phrases(relation_key)
