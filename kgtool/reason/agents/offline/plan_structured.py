"""The planner's structured reading and how its plan is weighed against the word-coverage one.

`OfflinePlanner` (planner.py) runs two searches from the linked topic mentions: the
word-coverage beam (every question word accounted for by some hop) and the
structured search (kgtool.reason.question reads the relation phrases in hop order,
StructuredSearch explains them in that order). This module turns a structured
path into an `OfflinePlan` and decides between the two plans (`choose`).
"""
from __future__ import annotations

from typing import Callable, Sequence

from kgtool.core.text import light_stem
from kgtool.core.types import PLACEHOLDER, CandidateFact
from kgtool.reason.agents.offline.common import Mention, OfflinePlan, _endpoints
from kgtool.reason.agents.offline.structured import StructuredPath, StructuredSearch
from kgtool.reason.answer_kind import TIME_KINDS
from kgtool.reason.question import QuestionReading
from kgtool.reason.reading.analysis import analysed
from kgtool.reason.roles import segment_role
from kgtool.reason.relmatch import RelationProfile
from kgtool.reason.subquestions import GENERIC_IN, GENERIC_OUT


def plan_structured(search: StructuredSearch, question: str, groups: Sequence[Sequence[Mention]],
                    entity_name: Callable[[str], str], profile_of: Callable[[CandidateFact], RelationProfile]
                    ) -> OfflinePlan | None:
    """The best path explaining the question's phrases in order, from any topic mention.

    A longer mention wins as soon as one of its paths explains every phrase;
    None when no mention yields a path (the word-coverage search then decides).
    """
    best: tuple[tuple, Mention, QuestionReading, StructuredPath, list[str]] | None = None
    for group in groups:
        for mention in group:
            reading = analysed(question).reading((mention[0], mention[1]))
            path = search.search(reading, mention[2])
            if path is None:
                continue
            missing = search.unexplained(reading, path)
            rank = (not missing, round(path.total, 6))
            if best is None or rank > best[0]:
                best = (rank, mention, reading, path, missing)
        if best is not None and not best[4]:
            break
    if best is None:
        return None
    _rank, (start, end, topic_id, surface), reading, path, missing = best
    topic_name = entity_name(topic_id) or surface
    segments = reading.required
    subqs = [subquestion_for(profile_of(hop.fact), topic_name if i == 0 else PLACEHOLDER, hop.fact.direction)
             for i, hop in enumerate(path.hops)]
    return OfflinePlan(
        subquestions=subqs,
        topic=topic_name,
        topic_id=topic_id,
        relations=[h.key for h in path.hops],
        directions=[h.fact.direction for h in path.hops],
        entities=[_endpoints(h.fact)[1][0] for h in path.hops],
        facts=[h.fact.fact_id for h in path.hops],
        scores=[h.fit for h in path.hops],
        explained=[[w for seg in segments[h.first:h.last] for w in seg.content] for h in path.hops],
        score=path.total,
        unexplained=missing,
        topic_span=(start, end),
        phrase_read=[h.first < h.last and min(h.fits, default=0.0) >= search.s.explains for h in path.hops],
    )


def settles_as_much(groups: Sequence[Sequence[Mention]], stated: OfflinePlan, from_text: OfflinePlan) -> bool:
    """May a stated path replace one taking a passage fact (the source prior)? Not when the
    passage path reaches an entity the question names that the stated one misses: that hop is
    a constraint of the question ("... <verb>ed in X", X a name) only a document settles."""
    named = {m[2] for group in groups for m in group}
    return not (named & set(from_text.entities)) - set(stated.entities)


def phrases_left(reading: QuestionReading, words_left: list[str]) -> list[str]:
    """The relation phrases of the question's reading that a word-coverage plan leaves to no hop.

    The coverage search accounts for words, so its leftovers include words that
    name no relation (the answer's type, "which city"; a frame verb). A phrase
    counts as unexplained only when none of its content words is accounted for;
    answer-type and frame phrases are never required (see Segment).
    """
    left = {w.lower() for w in words_left}
    return [seg.text for seg in reading.required
            if not seg.soft and all(w.lower() in left for w in seg.content)]


def weigh(search: StructuredSearch, question: str, structured: OfflinePlan, coverage: OfflinePlan,
          neighbours: dict[str, list[CandidateFact]], named: set[str] = frozenset()) -> OfflinePlan:
    """Between the two searches' plans, reading both the way the structured search reads its own.

    A path reaching more of the question's other named entities (`named`) wins. Then the coverage
    path is scored against the question's phrases on the structured search's scale
    (StructuredSearch.rescore): scoring higher there, it is a path the beam missed, and wins.
    Otherwise `choose` decides on counts of unexplained phrases taken alike for both (a phrase
    whose hop fits it below the structured search's `explains` level is unexplained for either;
    the word-coverage search's own leftovers count a phrase explained when any one of its words
    is, so a paraphrase sharing a word by accident, "head office" with "head of government",
    would pass), and a longer coverage path wins a tie only when every one of its hops explains
    some word of the question (a hop that explains none is a detour, not a phrase the structured
    reading missed).
    """
    if not coverage.relations or coverage.topic_span is None:
        return structured
    # a path through more of the other entities the question names reads more of it ("the song
    # performed by T that was recorded in L" ends at L, whatever its phrases scored)
    reached_c, reached_s = named & set(coverage.entities), named & set(structured.entities)
    if reached_c > reached_s:
        return coverage
    if reached_s > reached_c:
        return structured
    facts = chain_facts(coverage, neighbours)
    reading = analysed(question).reading(coverage.topic_span)
    if reading.answer_type in TIME_KINDS and facts is not None:
        # a point in time is written with digits (the status rule's answer-kind check): a path ending at a
        # name does not answer "when" over one ending at a date
        ours = chain_facts(structured, neighbours)
        if ours and _ends_in_digits(ours) != _ends_in_digits(facts):
            return structured if _ends_in_digits(ours) else coverage
    if facts is None:
        return choose(structured, coverage)
    score, missing = search.rescore(reading, facts)
    if score is not None and round(score, 6) > round(structured.score, 6):
        return coverage
    if missing != len(structured.unexplained):
        return structured if len(structured.unexplained) < missing else coverage
    if len(coverage.relations) > len(structured.relations) and all(
            _names_more_than_kinds(words, reading) for words in coverage.explained):
        return coverage
    return structured


def _names_more_than_kinds(words: Sequence[str], reading: QuestionReading) -> bool:
    """Does a hop explain a word other than the kinds the question gives its answers ("Which company
    published T?", "the company that publishes T": the publisher is a company)? A hop for such a word
    alone is a type hop, which the structured search weighs itself (StructuredSearch._type_hops); a
    relation only named after the kind ("parent company") is no reading of a phrase the other path missed."""
    kinds = {light_stem(w) for w in (reading.answer_type or "").lower().split()}
    for seg in reading.required:
        role = segment_role(seg, reading.topic)
        if role.verb:
            kinds.update(role.noun)  # the head of a clause: "the company that publishes T"
    return any(light_stem(w.lower()) not in kinds for w in words)


def _ends_in_digits(facts: Sequence[CandidateFact]) -> bool:
    last = facts[-1]
    return any(ch.isdigit() for ch in (last.head if last.direction == "in" else last.tail) or "")


def chain_facts(plan: OfflinePlan, neighbours: dict[str, list[CandidateFact]]) -> list[CandidateFact] | None:
    """The facts of a plan's hops, as the neighbourhood reads hold them (None if one is not there)."""
    out = []
    at = plan.topic_id
    for fact_id, direction, entity in zip(plan.facts, plan.directions, plan.entities):
        found = next((f for f in neighbours.get(at, []) if f.fact_id == fact_id and f.direction == direction), None)
        if found is None:
            return None
        out.append(found)
        at = entity
    return out


def choose(structured: OfflinePlan, coverage: OfflinePlan) -> OfflinePlan:
    """Between the two searches' plans: the one leaving fewer of the question's relation phrases
    unexplained; on a tie the longer path (each search stops where its reading of the question
    ends, so a hop the other did not take is one it found a phrase or word for); on equal length
    the structured reading, which follows the question's order.

    Measured in memory on the dev sets (bench/planner_gold_paths.py), neither search alone is
    right on both: the structured one misses hops a question names by a type word ("which
    continent ...") or reads past the question's end on phrases it cannot place, the coverage
    one misreads order and paraphrases; the count of unexplained phrases tells which of the two
    readings held (gold paths: paraphrase dev 0.795, MQuAKE dev 0.959; the former rule, longer
    path first, 0.790 and 0.949)."""
    if not coverage.relations:
        return structured
    if len(structured.unexplained) != len(coverage.unexplained):
        return structured if len(structured.unexplained) < len(coverage.unexplained) else coverage
    if len(structured.relations) != len(coverage.relations):
        return structured if len(structured.relations) > len(coverage.relations) else coverage
    return structured


def subquestion_for(prof: RelationProfile, entity: str, direction: str = "out") -> str:
    """A single-hop question for the relation about `entity`.

    Uses the relation's own question phrasing when the corpus gives one, so
    the sub-question reads as naturally as the data; otherwise a generic
    "What is the <label> of <entity>?".
    """
    label = prof.label or prof.key
    if direction == "in":
        return GENERIC_IN.format(entity=entity, label=label)
    if prof.questions:
        return prof.questions[0].replace("{}", entity)
    return GENERIC_OUT.format(entity=entity, label=label)

