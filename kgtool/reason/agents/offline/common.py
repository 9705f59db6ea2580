"""What the offline agents share: the graph view they read, relation profiles, mention tests."""
from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Protocol, Sequence

from kgtool.core.text import fold, normalise_label, tokenize
from kgtool.core.text import relation_key as core_relation_key
from kgtool.core.types import (
    PLACEHOLDER,
    CandidateFact,
    PassageHit,
    Plan,
)
from kgtool.reason.relmatch import RelationMatcher, RelationProfile, TextAnalysis, phrase_core
from kgtool.reason.offline_config import OFFLINE

Mention = tuple[int, int, str, str]  # (start, end, entity_id, surface)


class GraphView(Protocol):
    """The slice of the graph the offline agents may read (one edit scope)."""

    def neighborhoods(self, entity_ids: Sequence[str], per_group: int) -> dict[str, list[CandidateFact]]:
        """1-hop facts of several entities, both directions (`direction` tells which);
        may keep only per_group facts per (relation, direction), since facts of one
        group are alike to the planner."""
        ...

    def link_mentions(self, text: str) -> list[Mention]:
        """Entity names/aliases found in text, longest non-overlapping first."""
        ...

    def entity_name(self, entity_id: str) -> str: ...

    def relation_phrases(self, relation_key: str) -> list[str]:
        """Label plus corpus phrasings; phrasings may carry a "{}" entity slot."""
        ...

    # the named reads of the roles that read passages or check a step (kgtool.reason.graphview.GraphView):
    # roles run no Cypher of their own
    def passage_entities(self, passage_ids: Sequence[str]) -> dict[str, list[dict]]: ...

    def passages_naming(self, queries: list[dict], limit: int) -> dict[str, list[PassageHit]]: ...

    def fact_in_scope(self, fact_id: str) -> dict | None: ...

    def hops_between(self, from_id: str, to_id: str) -> int | None: ...

    def is_object_of(self, entity_id: str, relation_keys: Sequence[str]) -> bool: ...


def relation_key(fact: CandidateFact) -> str:
    """The key a fact's relation is known by (kgtool.core.text.relation_key)."""
    return core_relation_key(fact.relation, fact.relation_id)


@dataclass(frozen=True)
class Thresholds:
    """The offline agents' cut-offs, shared by every role (settings of the same names)."""

    fit: float = OFFLINE.fit  # a relation explains a text at or above this matcher score
    same_relation: float = OFFLINE.same_relation  # two relations count as one at this similarity (CARE's delta_rel)
    reverse_factor: float = OFFLINE.reverse_factor  # a relation read against its direction counts for this much
    name_coverage: float = OFFLINE.name_coverage  # share of a name's words a text must hold to mention it
    # a fact read only from passages weighs this much against one an edit or a fact file states:
    # a document corpus in the store must not overrule the structured facts of the same hop
    text_prior: float = OFFLINE.text_prior
    # the planner's structured search (kgtool.reason.question), besides the word-coverage one
    structured: bool = OFFLINE.structured

    @classmethod
    def from_settings(cls, settings) -> "Thresholds":
        return cls(settings.offline_fit, settings.delta_rel, settings.offline_reverse_factor,
                   settings.offline_name_coverage, getattr(settings, "offline_text_prior", cls.text_prior),
                   bool(getattr(settings, "offline_structured", cls.structured)))

    def source_prior(self, fact: CandidateFact) -> float:
        """1.0 for a fact an edit or a fact file states, `text_prior` for one read from passages."""
        return 1.0 if getattr(fact, "stated", True) else self.text_prior


class StatedOnly(dict):
    """A neighbourhood cache (entity id -> facts) that keeps only stated facts (edits, fact files):
    the planner's source-prior search runs on it; neighbourhoods read into it later are filtered too."""

    def __init__(self, neighbours: dict[str, list[CandidateFact]]):
        super().__init__()
        self.update(neighbours)

    def update(self, other=(), **more) -> None:  # type: ignore[override]
        for key, facts in dict(other, **more).items():
            self[key] = [f for f in facts if getattr(f, "stated", True)]


def reads_passages(fact_ids: Sequence[str], neighbours: dict[str, list[CandidateFact]]) -> bool:
    """Does a path (its fact ids) take a fact read only from passages?"""
    on_path = set(fact_ids)
    return bool(on_path) and any(f.fact_id in on_path and not getattr(f, "stated", True)
                                 for facts in neighbours.values() for f in facts)


def first_per_group(facts: Sequence[CandidateFact], per_group: int) -> list[CandidateFact]:
    """The first per_group facts of each (relation, direction): what `neighborhoods` may return."""
    taken: dict[tuple[str, str], int] = {}
    out = []
    for fact in facts:
        group = (relation_key(fact), fact.direction)
        if taken.get(group, 0) < per_group:
            taken[group] = taken.get(group, 0) + 1
            out.append(fact)
    return out


def same_name(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and normalise_label(a) == normalise_label(b)


@dataclass
class OfflinePlan(Plan):
    """A plan that also says which relation (and direction) each hop should follow.

    `entities`/`facts` are the path the planner found; the loop does not have
    to follow it (the selector re-decides each hop), but it explains the plan.
    """

    entities: list[str] = field(default_factory=list)  # planned answer id per hop
    facts: list[str] = field(default_factory=list)  # planned fact id per hop
    scores: list[float] = field(default_factory=list)  # question coverage won by each hop
    explained: list[list[str]] = field(default_factory=list)  # question words each hop accounts for
    score: float = 0.0  # the path's total score
    unexplained: list[str] = field(default_factory=list)  # question words no hop accounts for
    # where the topic the plan starts from is mentioned (the status rule reads the question around it)
    topic_span: tuple[int, int] | None = None
    # per hop: its relation fits the question phrase it was read from (the structured reading,
    # kgtool.reason.agents.offline.plan_structured); a coverage plan's hops explain words, not phrases
    phrase_read: list[bool] = field(default_factory=list)
    # (fact id, reason): unnamed hops to a thing of the same kind (peer_links); a chain taking one is not answered
    peer_links: list[tuple[str, str]] = field(default_factory=list)


# ---------------------------------------------------------------------------
# shared helpers


class _Profiles:
    """Relation profiles built from a GraphView's phrases, keyed by relation key."""

    def __init__(self, graph: GraphView | None, matcher: RelationMatcher):
        self.graph = graph
        self.matcher = matcher
        self._phrases: dict[str, list[str]] = {}  # the graph is asked once per relation
        # a planner asks for a profile per candidate fact (~1,000 an answer), of a few dozen relations
        self._built: dict[tuple[str, str], RelationProfile] = {}

    def of(self, key: str, label: str = "") -> RelationProfile:
        built = self._built.get((key, label))
        if built is None:
            built = self._built[(key, label)] = self._build(key, label)
        return built

    def _raw(self, key: str, label: str) -> list[str]:
        """The phrases a profile of (key, label) is built from: the graph's phrasings, the label first
        when they do not hold it."""
        phrases: list[str] = []
        if self.graph is not None:
            if key not in self._phrases:
                self._phrases[key] = list(self.graph.relation_phrases(key))
            phrases = self._phrases[key]
        if label and not any(normalise_label(p) == normalise_label(label) for p in phrases):
            phrases = [label, *phrases]
        return phrases or [label or key]

    def _build(self, key: str, label: str) -> RelationProfile:
        return self.matcher.profile(key, self._raw(key, label))

    def prefetch(self, facts, lexicon=None) -> None:
        """Embed the phrasings of every relation of `facts` not profiled yet, in one embedder call.

        Called when a neighbourhood is read: a document store holds thousands of relations read
        off passages, and building their profiles one by one as the search meets them cost one
        model call each (a fixed ~30-50 ms on a busy core), most of a text answer's planning.
        The profiles are then built from the encoder's cache, with the same vectors. With the
        planner's `lexicon`, the WordNet glosses its phrase scorer reads each relation's label by
        (kgtool.reason.segmatch, one model call per relation too) join the same call.
        """
        todo = [kl for kl in dict.fromkeys((relation_key(f), f.relation) for f in facts) if kl not in self._built]
        cores, extra = [], []
        for key, label in todo:
            raw = list(dict.fromkeys(p for p in self._raw(key, label) if p and p.strip()))
            mine = [c for c in (phrase_core(p) for p in raw) if c]
            cores += mine
            # the profile's label, as RelationMatcher.profile picks it; its glosses as segmatch reads them
            shown = next((p for p in raw if "{}" not in p), mine[0] if mine else key)
            if lexicon is not None and shown and len(shown.split()) <= 3:
                extra += lexicon.glosses(shown, senses=2) or []
        embed_relations(self.matcher.encoder, self.graph, {key for key, _label in todo}, cores, extra)

    def of_fact(self, fact: CandidateFact) -> RelationProfile:
        return self.of(relation_key(fact), fact.relation)


def embed_relations(encoder, graph, keys, cores: Sequence[str], extra: Sequence[str] = ()) -> None:
    """Have `encoder` (a CachedEmbedder) hold a vector for each of the relations' phrase cores
    (and for the `extra` strings).

    The label vectors ingestion stored for the relations (`graph.relation_vectors`, made by the same
    model from the same strings) are put in its cache; the rest is embedded in one call.
    """
    cores = [c for c in dict.fromkeys([*cores, *extra]) if c and not encoder.cached(c)]
    stored = getattr(graph, "relation_vectors", None)
    if cores and stored is not None:
        found = stored(keys, encoder.name)
        seeded = [c for c in cores if c in found]
        if seeded:
            encoder.put(seeded, [found[c] for c in seeded])
            cores = [c for c in cores if c not in found]
    if cores:
        encoder.encode(cores)


def _name_spans(text: str, names: Sequence[str]) -> list[tuple[int, int]]:
    r"""Character spans where any of the names occurs as whole words (case/accents folded).

    What `re.finditer(r"(?<!\w)NAME(?!\w)")` finds, without compiling a
    pattern per name: the names change with every candidate, so the regex
    cache missed and compiling took a few ms of every offline answer.
    """
    low = fold(text)
    spans: list[tuple[int, int]] = []
    for name in names:
        n = fold(name).strip()
        if not n:
            continue
        size, at = len(n), low.find(n)
        while at >= 0:
            end = at + size
            if (at == 0 or not _word_char(low[at - 1])) and (end == len(low) or not _word_char(low[end])):
                spans.append((at, end))
                at = low.find(n, end)  # matches do not overlap
            else:
                at = low.find(n, at + 1)
    return spans


def _word_char(ch: str) -> bool:
    r"""What `\w` matches in a str pattern: alphanumerics (str.isalnum) and the underscore."""
    return ch.isalnum() or ch == "_"


def _token_coverage(name: str, text: str) -> float:
    """Share of a name's word tokens that occur in the text."""
    name_toks = {t.text.lower() for t in tokenize(fold(name))}
    if not name_toks:
        return 0.0
    text_toks = {t.text.lower() for t in tokenize(fold(text))}
    return len(name_toks & text_toks) / len(name_toks)


class _Mentions:
    """Does a text mention an entity? By its name first, then alias-aware through the graph.

    The plain name search is tried first because it is cheap and usually
    enough; the graph's linker (which knows aliases) is asked only when the
    name is not there, and its answers are remembered per text.
    """

    def __init__(self, graph: GraphView | None, cache_size: int = 4096):
        self.graph = graph
        self.cache_size = cache_size
        self._linked: OrderedDict[str, list[Mention]] = OrderedDict()

    def linked(self, text: str) -> list[Mention]:
        if self.graph is None:
            return []
        found = self._linked.get(text)
        if found is None:
            found = list(self.graph.link_mentions(text))
            self._linked[text] = found
            if len(self._linked) > self.cache_size:
                self._linked.popitem(last=False)
        return found

    def spans(self, text: str, entity_id: str | None, name: str | None) -> list[tuple[int, int]]:
        spans = _name_spans(text, [name]) if name else []
        if not spans and entity_id:
            spans = [(s, e) for s, e, eid, _ in self.linked(text) if eid == entity_id]
        return spans

    def support(self, text: str, entity_id: str | None, name: str | None) -> float:
        """1.0 when the entity is named in the text, else the name's token coverage."""
        if self.spans(text, entity_id, name):
            return 1.0
        return _token_coverage(name, text) if name else 0.0


def _placeholder_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(re.escape(PLACEHOLDER), text)]


def _endpoints(fact: CandidateFact) -> tuple[tuple[str, str], tuple[str, str]]:
    """((id, name) the hop starts from, (id, name) it leads to)."""
    if fact.direction == "in":
        return (fact.tail_id, fact.tail), (fact.head_id, fact.head)
    return (fact.head_id, fact.head), (fact.tail_id, fact.tail)

def _subquestion_analysis(
    matcher: RelationMatcher,
    mentions: _Mentions,
    subquestion: str,
    entity: str,
    candidates: Sequence[CandidateFact] = (),
) -> TextAnalysis:
    """The sub-question's own wording: the entity and the placeholder cut out."""
    names = {entity}
    for c in candidates:
        (sid, sname), _ = _endpoints(c)
        if entity in (sid, sname):
            names.add(sname)
    spans = _placeholder_spans(subquestion)
    for name in names:
        spans += mentions.spans(subquestion, entity if name == entity else None, name)
    return matcher.analyse(subquestion, exclude=spans)
