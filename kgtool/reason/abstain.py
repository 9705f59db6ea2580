"""What the status rule (kgtool.reason.status) needs to tell "the graph lacks it" from "the reading is
uncertain", and the confidence of an outcome.

Lacks (the outcome is `no_answer`, the reason names what is missing):
- a hop of the chain has no fact: a hop's answer rests on no fact or passage, or the chain stops
  short of the hops its plan asks for ("the graph has no '<relation>' of <entity>") and the reading
  check finds a part of the question the chain does not explain (a plan may ask one hop too many:
  a chain that explains the whole question is not short of anything);
- a part of the question that no hop explains and no relation of the graph fits at the reading
  check's bar (`expresses_nothing`), in a chain that took a hop the question does not
  name to a last hop no phrase asks for (it answered something else): "no relation of the graph
  expresses '<phrase>'";
- a part of the question that says a relation of the graph in its own words (and fits it at
  `names_outright`) that the chain's entity does not have (the reading check's `named_elsewhere`, or
  an unexplained phrase; one said of the topic, "the R of T" or "T's R", is asked of T alone, not of
  whatever else the chain reached): "the graph has no '<relation>' of <entity>". An unexplained phrase
  that says them after the question's opening only (its wh-word, an auxiliary, the noun a "which" asks
  by: "which company acquired" of `acquired`, "who was born in" of `born in`) and fits it at `expresses`
  says it too, with the asking word where the relation's subject stands: a lack when no entity of the
  chain is the object of such a fact (T acquired others, but nothing acquired T). A phrase that only
  resembles a relation ("origin" of `country of origin`) is not one: on MQuAKE dev such phrases sat in
  right chains that read them through another relation;
- a phrase the chain took another relation for, that names a relation outright which the entity the
  phrase's hop stands on has no fact of (checked of that entity: another entity of the chain having it, a
  partner who is someone's father, says nothing of this one; when the hop took that very relation
  backwards, checked the way the phrase names it: "X's father" answered through X's child);
- in a chain that strays, a part of the question that a relation of the graph expresses (fit at
  `expresses`) and none of the chain's entities has a fact of, when no hop comes near the phrase
  (`near_hop`: a paraphrase the matcher scores just below its bar is a doubt) and the answer is not of
  the literal kind asked (a year for "when");
- a hop the question does not name followed by the relation it asks, which the entity the unnamed hop
  left lacks while entities like it (on its side of the unnamed hop's relation) hold it at
  `detour_share`: the chain went round a missing fact ("where was X born" answered with X's partner's
  birthplace). When none of them holds it, the relation is not of that entity's kind and the unnamed
  hop is the bridge to it (a person's continent is the continent of their country): a doubt at most,
  unless the asked hop ends at a value (a number, a date): a value measures the entity it is stated
  of and does not carry over a link (a city's population is not its country's);
- a hop to another thing of the same kind by a link the question does not name (the planner's peer
  links): the entity lacks the asked relation, and the answer past the link is another entity's;
- a noun naming the other end of the relation a hop took forwards from T ("the son of T" answered with
  T's own father; kgtool.reason.lexicon.Lexicon.converse_nouns), or a verb saying what the relation's
  person does with the answer on the other end of the hop ("who gave birth to T" answered with T's child
  through `mother`; kgtool.reason.roles.doer_side), or the question's one relation phrase giving the
  answer the other role than the hop it named, that hop standing on T or reached from T only through links
  no phrase names ("who founded T" answered with the company T's mayor founded), when the graph has no
  fact of that relation with T on the side the question asks for (T is no one's father; T has no mother;
  T has no founder);
- an answer not of the kind asked at all (a person where a year is asked: the answer-kind check; a
  name where "how many" or "how old" asks for a quantity), so the chain reached no fact of the asked
  kind.
A method's rejection of one of `FOCUS_ONLY_VERDICTS` (it speaks of the spread of the method's candidate
pool, not of the chain) is no doubt when every hop is a stated fact and the reading check finds nothing.
Everything else that keeps a chain from `answered` is a doubt about its reading (`unverified`),
among them a part of the question that the matcher fits only loosely to any relation in a chain
that does not stray: a paraphrase the graph may well express. The bars are settings of
kgtool.reason.offline_config.OfflineConfig (`kgtool methods offline` lists them), set from the
development sets (tests/data paraphrase, handwritten, handwritten2): right answers' unexplained
paraphrases fit 0.05-0.7 and unanswerable questions' missing relations 0-0.42, so a low fit alone is
not a lack; in chains that stray, right answers' unexplained phrases fit 0.56 and up.

Confidence (0-1), from the evidence the rule read, a weighted mean of four parts:

    confidence = (w_judge * judge + w_support * support + w_reading * reading + w_focus * focus)
                 / (w_judge + w_support + w_reading + w_focus)

where w_judge is the setting `confidence_judge_weight`, and so on:

- judge: 1 when the method's own check (critic, N_eff sufficiency, verifier, step checks) accepted
  the chain, else 0;
- support: the share of the planned hops the chain reached with a fact or passage;
- reading: 1 without a doubt or lack about the reading, else `1 - reading_cost * count`, at least 0;
- focus: the mean over the hops that recorded one of min(1, gamma / N_eff) (the hop's candidate
  pool: 1 when it is as focused as the method's own sufficiency bar asks; 1 without N_eff).
An outcome the graph lacks something for is then scaled by `lack_factor`, and one in a store with an
unfinished ingest by `unfinished_factor`. The weights and `reading_cost`, `lack_factor` are fitted on the
development sets' stored answers by the mean AURC of their risk-coverage curves (bench/fit_confidence.py);
`unfinished_factor` is hand-set (no development store has an unfinished ingest).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Sequence

from kgtool.reason.offline_config import OFFLINE, OfflineConfig
from kgtool.reason.reading.words import AUXILIARIES, DETERMINERS, NOUN_WH, QUESTION_WORDS

# the kinds of a method's rejection that speak only of how spread its candidate pool was, not of the chain
# (C2RAG: a constraint's N_eff above gamma and no passage to recover it from); with every hop a stated fact
# and a reading check that finds nothing, such a rejection does not keep the answer from `answered`
FOCUS_ONLY_VERDICTS = ("unrecovered",)


def best_relation(check, phrase: str) -> tuple[str | None, float]:
    """The relation of the graph that expresses `phrase` best by a reading check's scorer and vocabulary
    (kgtool.reason.explains.ReadingCheck), and its fit; (None, 0.0) without a vocabulary."""
    if check.vocabulary is None or not phrase.strip():
        return None, 0.0
    check.scorer.prepare([(phrase, True)])
    best: tuple[str | None, float] = (None, 0.0)
    for key in check.vocabulary.candidates(phrase, check.scorer.vectors(phrase)):
        prof = check.profile_of(key, (check.vocabulary.phrases.get(key) or [key])[0])
        fit = check.scorer.score(phrase, prof)
        if fit > best[1]:
            best = (prof.label or key, fit)
    return best


def reading_lacks(gaps, left: Sequence[str], chain=(), settings: OfflineConfig = OFFLINE, *,
                  reads_text: bool = False) -> tuple[list[str], list[str]]:
    """What the graph lacks for the question's parts, named, and the doubts about the reading that remain,
    from the reading check's `gaps` (kgtool.reason.explains.Gaps) and the phrases the plan left to no hop
    (`left`). A part no hop explains is a lack when the question names a relation of the graph outright
    (fit >= `names_outright`: the entity lacks it) or when no relation expresses it at all (fit below
    `expresses_nothing`) and the chain took a hop the question does not name to a last hop no phrase asks
    for (it answered something else); between the two it is a doubt (a paraphrase the matcher scores low).
    A chain that reads text (`reads_text`) is not said to stray past what the graph expresses: its hops are
    the passages' own phrasings, which the graph's vocabulary need not hold."""
    found = getattr(gaps, "found", None)
    best = getattr(gaps, "best_relation", None) or (lambda _phrase: (None, 0.0))
    # a claim that the graph lacks a relation is checked against the graph: when the entity it is claimed of
    # takes part in a fact of it (the question read it the other way round), the gap is the reading's
    has = getattr(gaps, "has_relation", None)

    def holds(relation, of=None, forward=None, ids=None) -> bool:
        if has is None:
            return False
        ids = ids or (_ids_of(chain, of) if of is not None else None)
        if not ids:  # the chain's entities, on the side asked when one is
            return has(relation) if forward is None else has(relation, None, forward)
        return has(relation, ids, forward)
    # the chain answered something else: a hop the question does not name, and a last hop no phrase asks for
    strays = found is not None and bool(found.unnamed_hops) and found.weak_answer is not None and not reads_text
    kind_met = bool(getattr(gaps, "kind_met", False))
    reached = ", ".join(dict.fromkeys(h.entity for h in chain if getattr(h, "entity", None))) or "its entities"
    # a last hop no phrase asks for stands in for the phrase left over: that phrase is asked of the entities
    # the hops stand on, not of the answer the stand-in reached (a mother's spouse is not the mayor's)
    stood_on = {h.entity_id for h in chain if getattr(h, "entity_id", None)}
    asked_of = stood_on if found is not None and found.weak_answer is not None else None
    topic = next((h for h in chain if getattr(h, "entity_id", None)), None)  # the entity the first hop stands on
    lacks, doubts = [], []
    for phrase in dict.fromkeys([*left, *(found.unexplained if found is not None else [])]):
        label, fit = best(phrase)
        near = found.near.get(phrase, 0.0) if found is not None else 0.0
        # a phrase said of the topic ("the R of T") is asked of the topic, whatever else the chain reached
        of_topic = topic if topic is not None and phrase in getattr(found, "of_topic", ()) else None
        if _says(phrase, label) and fit >= settings.names_outright and \
                not holds(label, ids={of_topic.entity_id} if of_topic else asked_of):
            lacks.append(f"the graph has no {label!r} of {of_topic.entity if of_topic else reached} "
                         f"(the question's {phrase!r})")
        elif _says_after_opening(phrase, label) and fit >= settings.expresses and \
                not holds(label, forward=False, ids=asked_of):
            # the question's word stands where the relation's subject does ("which company acquired T"): it asks
            # for a fact with T as its object
            some = "any of " if "," in reached else ""
            lacks.append(f"the graph has no {label!r} fact with {some}{reached} as its object (the question's "
                         f"{phrase!r})")
        elif fit < settings.expresses_nothing and strays:
            lacks.append(f"no relation of the graph expresses {phrase!r}")
        elif strays and label and near < settings.near_hop and not kind_met and not holds(label):
            # the chain answered something else (no hop comes near the phrase, and the answer is not of the
            # literal kind asked), and none of its entities has the relation the phrase says
            lacks.append(f"the graph has nothing for {phrase!r} of {reached} (the relation nearest it, {label!r}, "
                         "has no fact of them)")
        else:
            doubts.append(f"the chain does not explain {phrase!r}"
                          + (f" (the graph's {label!r} may)" if label and fit >= settings.expresses else ""))
    named = found.named_elsewhere if found is not None else []
    named_of = found.named_of if found is not None else []
    forwards = (found.named_forward if found is not None else []) or [None] * len(named)
    for (phrase, relation), entity, forward in zip(named, named_of, forwards):
        label, fit = best(phrase)
        # the lack is claimed of the entity the hop stands on, on the side the hop left it from: another entity
        # of the chain having the relation (a spouse who is someone's father), or this one on the other side
        # (her own child's mother), says nothing of whether this one has it
        if label == relation and _says(phrase, relation) and fit >= settings.names_outright \
                and not holds(relation, entity, forward):
            lacks.append(f"the graph has no {relation!r} of {entity} (the question's {phrase!r})")
        else:
            doubts.append(f"{phrase!r} names the relation {relation!r} better than the chain's hop does")
    for phrase, relation, rival, entity in (found.rivals if found is not None else []):
        # two readings of one phrase, and the graph can answer both of the entity: the answer is one of two
        if holds(rival, entity):
            doubts.append(f"{phrase!r} may name {rival!r} as well as the chain's {relation!r}, and {entity} has both")
    for phrase, relation, entity, as_subject in (found.converse if found is not None else []):
        # "the son of T" answered with T's own father: the question asks for a fact with T as the father;
        # "who gave birth to T" answered with T's child: it asks for T's own mother
        if (phrase, relation) in found.reversed and not holds(relation, entity, forward=as_subject):
            side = "subject" if as_subject else "object"
            lacks.append(f"the graph has no {relation!r} fact with {entity} as its {side} (the question's {phrase!r} "
                         "reads it the other way round from the chain's hop)")
    lacks += _detours(gaps, found, settings)
    return lacks, doubts


def _detours(gaps, found, settings: OfflineConfig) -> list[str]:
    """The unnamed hops that went round a fact their entity lacks (see `detour_share`), named."""
    detour = getattr(gaps, "detour", None)
    if detour is None or found is None:
        return []
    out = []
    for hop in found.unnamed_hops:
        if hop + 1 in found.unnamed_hops:
            continue  # the hop after it is not one the question asks either
        d = detour(hop)
        if d is None or (d.last and found.weak_answer is not None):
            continue  # no detour, or no phrase asks for the hop after it either
        if d.value:
            # a number or a date measures the entity it is stated of: another's does not carry over the link
            # (a city's population is not its country's), as a continent or a currency may
            whose = " value"
        elif d.peers and d.holding >= settings.detour_share * d.peers:
            whose = f"; {d.holding} of {d.peers} entities with a {d.via!r} like it have one"
        else:
            continue
        out.append(f"the graph has no {d.relation!r} of {d.entity} (the chain took {d.via!r} to another "
                   f"entity's{whose})")
    return out


def _ids_of(chain, name: str) -> set[str]:
    """The ids the chain's facts give the entity named `name` (a hop's subject or object)."""
    ids = set()
    for h in chain:
        fact = getattr(h, "fact", None)
        if fact is None:
            continue
        for side, side_id in ((fact.head, fact.head_id), (fact.tail, fact.tail_id)):
            if side == name and side_id:
                ids.add(side_id)
        if h.entity == name and h.entity_id:
            ids.add(h.entity_id)
    return ids


def _says(phrase: str, relation: str | None) -> bool:
    """Does the phrase say the relation's own words ("father" of `father`), not a word that only resembles
    them ("origin" of `country of origin`, "performances" of `performer`)?"""
    return relation is not None and relation_words(phrase) == relation_words(relation)


def _says_after_opening(phrase: str, relation: str | None) -> bool:
    """Does the phrase say the relation's own words after the question's opening only: its wh-word, an
    auxiliary, and the noun a "which"/"what" asks by ("who was born in" of `born in`, "which company acquired"
    of `acquired`)? The opening names no relation, so the phrase asks for that one."""
    words, said = relation_words(phrase).split(), relation_words(relation).split()
    if not said or len(words) <= len(said) or words[-len(said):] != said:
        return False
    opening = words[:-len(said)]
    if opening[0] in NOUN_WH:
        opening = opening[2:]  # the wh-word and the noun it asks by
    return all(w in QUESTION_WORDS or w in AUXILIARIES or w in DETERMINERS for w in opening)


def short_chain(chain, plan) -> str | None:
    """The hop past the last one the chain reached, when it stops short of the hops its plan asks for:
    what the plan asked of the last entity reached, named."""
    relations = list(getattr(plan, "relations", None) or []) if plan is not None else []
    subquestions = list(getattr(plan, "subquestions", None) or []) if plan is not None else []
    wanted = len(relations) if relations else len(subquestions)
    if not wanted or len({h.hop for h in chain if h.answer}) >= wanted:
        return None
    stand = next((h for h in reversed(chain) if h.answer and not h.generated), None)
    n = len({h.hop for h in chain if h.answer and not h.generated})
    asked = relations[n] if n < len(relations) else (subquestions[n] if n < len(subquestions) else "next hop")
    asked = relation_words(asked)
    if n < len(relations) and asked in {relation_words(getattr(h.fact, "relation", "")) for h in chain if h.fact}:
        return None  # the plan asks again for a relation the chain already took: one hop too many, not a gap
    entity = stand.answer if stand is not None else (getattr(plan, "topic", None) or "the question's entity")
    return f"the graph has no {asked!r} of {entity} (the chain reaches {n} of the {wanted} hops the plan asks for)"


def relation_words(relation) -> str:
    """A relation's label or key as plain lower-case words (no 'rel:' prefix, no underscores)."""
    return " ".join(str(relation or "").removeprefix("rel:").replace("_", " ").lower().split())


# the answer-kind check's messages (kgtool.reason.answer_kind) when the answer is a literal of another shape,
# is filed elsewhere, or no fact of the asked kind ends at it: the chain answered something not asked for
KIND_ASKED, NOT_OF_KIND = "the question asks for a ", ("is not one", "fact of the graph ends at")


def other_kind(reason: str) -> bool:
    """Is a reading-check reason the answer-kind check saying the answer is not of the kind asked at all (a
    person where a year is asked)? Its softer findings (a place inside another place) stay doubts."""
    return reason.startswith(KIND_ASKED) and any(marker in reason for marker in NOT_OF_KIND)


def focus_only(method_reason: str | None, chain, settings: OfflineConfig = OFFLINE) -> bool:
    """Is the method's rejection one of `FOCUS_ONLY_VERDICTS` (the runner writes a judge's reason as
    '<error type>: <explanation>'), of a chain whose every hop answers with a stated fact?"""
    kind = (method_reason or "").split(":", 1)[0].strip()
    return kind in FOCUS_ONLY_VERDICTS and bool(chain) and all(
        h.answer and not h.generated and h.fact is not None and getattr(h.fact, "stated", True) for h in chain)


def unsupported_hops(chain) -> list[str]:
    """Hops whose answer rests on no fact or passage (generated, or with no answer)."""
    out = []
    for n in sorted({h.hop for h in chain if h.generated or not h.answer}):
        h = next(h for h in chain if h.hop == n)
        out.append(f"hop {n} has no fact in the graph ({h.query!r} of {h.entity or 'its entity'})")
    return out


@dataclass(frozen=True)
class ConfidenceEvidence:
    """What an outcome's confidence is weighed from (the module docstring's parts). The answer and the
    eval results keep it, so the weights can be fitted on stored answers without answering again
    (bench/fit_confidence.py)."""
    judge: bool  # the method's own check accepted the chain
    support: float  # the share of the planned hops reached with a fact or passage
    flaws: int  # doubts and lacks about the reading
    focus: float  # the hops' mean min(1, gamma / N_eff); 1 without N_eff
    lacks: int  # of them, the lacks
    unfinished: bool  # the store has an unfinished ingest

    def as_dict(self) -> dict:
        return asdict(self)


def confidence_evidence(*, accepted: bool, chain, plan, doubts: int, lacks: int, unfinished: bool,
                        gamma: float | None = None, settings: OfflineConfig = OFFLINE) -> ConfidenceEvidence:
    """The parts of an outcome's confidence, read from its chain, plan and reading check."""
    relations = list(getattr(plan, "relations", None) or []) if plan is not None else []
    wanted = len(relations) or len(getattr(plan, "subquestions", None) or []) or len({h.hop for h in chain}) or 1
    supported = len({h.hop for h in chain if h.answer and not h.generated})
    bar = gamma or settings.default_gamma
    neffs = [h.neff for h in chain if getattr(h, "neff", None)]
    focus = sum(min(1.0, bar / n) for n in neffs) / len(neffs) if neffs else 1.0
    return ConfidenceEvidence(bool(accepted), min(1.0, supported / wanted), doubts + lacks, focus, lacks,
                              bool(unfinished))


def weigh(evidence: ConfidenceEvidence, settings: OfflineConfig = OFFLINE) -> float:
    """The confidence (0-1) the module docstring's formula gives `evidence`."""
    s, e = settings, evidence
    reading = max(0.0, 1.0 - s.reading_cost * e.flaws)
    weights = (s.confidence_judge_weight, s.confidence_support_weight, s.confidence_reading_weight,
               s.confidence_focus_weight)
    value = sum(w * part for w, part in zip(weights, (e.judge, e.support, reading, e.focus))) / sum(weights)
    if e.lacks:
        value *= s.lack_factor
    if e.unfinished:
        value *= s.unfinished_factor
    return round(max(0.0, min(1.0, value)), 4)
