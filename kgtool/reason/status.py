"""The status rule every method's answer passes through: `answered` only when it is earned.

A method reports what its own judge found (CARE's critic, ReAgent's assembler,
SAFE's feedback, ...). That is necessary, not sufficient: a judge checks the
chain it was given, and a chain can be consistent while the question asked for
more (a plan that dropped "capital" answers with the country). The runner
settles every method's outcome here, once:

- `answered` needs an answer, the method's own acceptance, a plan that leaves no
  relation phrase of the question unexplained (the planner's `unexplained`,
  when the plan carries it, less the phrases the reading check below finds a hop
  of the chain for: the planner scored only its own plan), a chain that reaches every hop the plan asked for,
  every hop supported (a fact or a passage, not generated from nothing), no
  hop the planner found to link two things of the same kind unnamed (a fund to the
  company it invested in, before "the CEO of the fund"), and a
  chain whose relations explain the question's relation phrases, each by the
  relation of the graph that names it, with no hop the question does not name
  (the reading check, kgtool.reason.explains: one rule for every method, since
  each method may follow a chain other than the plan), and, for a chain resting on a hop read
  from text, an answer the text confirms: of the kind asked, a literal of the shape asked, or a
  comparison with evidence read of each side (kgtool.reason.text_evidence; not contradicted is
  not confirmed, and a chain of stated facts is never asked);
- failing any of these, the outcome is one of two a user can act on (kgtool.reason.abstain):
  `no_answer` when the graph lacks what the question asks: no entity of the question is in it (by the
  linker's reading of the question, near names included, also when a method anchored a chain of stated
  facts by a looser search of its own), a hop of
  the chain has no fact (the chain stops short of the plan, or a hop rests on nothing), or a part of the
  question names a relation the entity lacks or no relation of the graph expresses; the reason names it
  ("the graph has no 'mother' of <entity>", "no relation of the graph expresses 'instrument'"), and
  the method's answer stays in the trace as its guess. Otherwise `unverified`: a supported chain whose
  reading is uncertain (the judge did not accept it, a hop the question does not name, a phrase read
  against the relation's direction, the text does not confirm it), shown as a guess;
- a store with an unfinished ingest (kgtool.health.unfinished_ingests) never answers: the reason names it;
- every outcome has a confidence (0-1) from the same evidence (kgtool.reason.abstain.weigh), and a
  caller's `min_confidence` turns an answer below it into `no_answer`, its guess kept;
- either way the Run and the result say why (`reason`); when no entity of the
  question is in the graph, the reason says exactly that.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from kgtool.core.types import Plan
from kgtool.reason import abstain
from kgtool.reason.context import HopState
from kgtool.reason.offline_config import OFFLINE, OfflineConfig

NO_ENTITY = "no entity of the question is in the graph"


@dataclass(frozen=True)
class Settled:
    status: str  # answered | unverified | no_answer
    reason: str | None  # why the status is not `answered` (None when it is)
    no_entity: bool = False  # nothing of the question linked to the graph
    confidence: float = 0.0  # 0-1, kgtool.reason.abstain.weigh
    guess: str | None = None  # the method's answer a `no_answer` keeps only as a guess (in the trace)
    evidence: abstain.ConfidenceEvidence | None = None  # what the confidence was weighed from

    @property
    def answer_shown(self) -> bool:
        """Does the result show the method's answer (as the answer or, `unverified`, as a guess)?"""
        return self.status != "no_answer"


def settle(method_status: str, answer: str | None, chain: Sequence[HopState], plan: Plan | None, *,
           method_reason: str | None = None,
           question_mentions: Callable[[], int] | None = None,
           reading_gaps: Callable[[], list[str]] | None = None,
           text_gaps: Callable[[], list[str]] | None = None,
           unfinished: Callable[[], list[str]] | None = None,
           min_confidence: float | None = None, gamma: float | None = None,
           settings: OfflineConfig = OFFLINE) -> Settled:
    """The honest status of a method's outcome (see the module docstring).

    `plan` is the plan of the whole question the chain followed (None when the
    method's planner is not the shared one); `method_reason` what the method's
    judge said when it did not accept; `question_mentions` counts the question's
    mentions that link to the graph, and is asked only when the run never stood
    on an entity; `reading_gaps` scores the question's relation phrases against
    the chain's relations (kgtool.reason.explains) and lists what does not fit,
    asked of every chain whose hops all have a fact; `text_gaps` reads what the passages say of the
    answer (kgtool.reason.text_evidence), asked only of a chain that reads text (`reads_text`) and passes
    every other check: a chain of stated facts is never asked. `unfinished` lists the store's unfinished
    ingests, named (kgtool.health.unfinished_message); `min_confidence` turns an answer below it into
    `no_answer`; `gamma` is the method's N_eff bar (the confidence's focus part).
    """
    notes = list(unfinished()) if unfinished is not None else []

    def outcome(lacks: list[str], doubts: list[str], accepted: bool) -> Settled:
        evidence = abstain.confidence_evidence(accepted=accepted, chain=chain, plan=plan, doubts=len(doubts),
                                               lacks=len(lacks), unfinished=bool(notes), gamma=gamma,
                                               settings=settings)
        value = abstain.weigh(evidence, settings)
        status = "no_answer" if lacks or not answer else ("unverified" if doubts or notes else "answered")
        reasons = lacks + doubts + notes
        if status != "no_answer" and min_confidence is not None and value < min_confidence:
            status = "no_answer"
            reasons.append(f"confidence {value:.2f} is below the minimum {min_confidence:g}")
        return Settled(status, "; ".join(reasons) or None, confidence=value if answer else 0.0,
                       guess=answer if status == "no_answer" else None, evidence=evidence if answer else None)

    # a chain of stated facts stands on an entity the method found; when the linker finds no entity of the
    # question at all (near names included), the method found it by a looser search of its own (a word the
    # names share), and the question's entity is not in the graph. A chain read from text is not asked:
    # its passages, not the graph's names, hold what the question names.
    stood = _stood_on_entity(chain, plan)
    if question_mentions is not None and (not stood or (answer and not reads_text(chain))) and \
            question_mentions() == 0:
        settled = outcome([NO_ENTITY], [], False)
        return replace(settled, no_entity=True)
    if not answer:
        lacks = [g for g in (abstain.short_chain(chain, plan), *abstain.unsupported_hops(chain)) if g]
        return outcome(lacks or [method_reason or "no chain reached an answer"], [], False)
    left = _left_by_plan(plan)
    lacks = abstain.unsupported_hops(chain)
    short = abstain.short_chain(chain, plan)
    peer = _peer_link(chain, plan)
    judged = [] if method_status == "answered" else [method_reason or "the method's own check did not accept the chain"]
    doubts = list(judged)
    if peer:  # the entity lacks what was asked: the chain reached it through another entity of its kind
        lacks.append(peer)
    if not lacks and reading_gaps is not None:
        read = reading_gaps()
        # the planner saw only its own plan and scorer; the reading check reads the chain taken with every
        # reading it has (roles, WordNet's doers): a phrase it finds a hop for is explained
        left = [p for p in left if p not in getattr(read, "explained", ())]
        lacks, unread = abstain.reading_lacks(read, left, chain, settings, reads_text=reads_text(chain))
        rest = [g for g in read if not _restated(g, getattr(read, "found", None))]
        lacks += [g for g in rest if abstain.other_kind(g)]
        doubts += unread + [g for g in rest if not abstain.other_kind(g)]
        left = []
    if left:
        doubts.insert(0, "the chain does not explain " + ", ".join(repr(p) for p in left))
    if short:  # a chain short of its plan lacks a hop unless it explains the whole question (a plan too long)
        (lacks if lacks or doubts != judged or reading_gaps is None else doubts).insert(0, short)
    if judged and not lacks and doubts == judged and reading_gaps is not None and \
            abstain.focus_only(method_reason, chain, settings):
        # the judge spoke only of its candidate pool's spread (N_eff above its bar, no passage to recover from);
        # every hop is a stated fact and the reading check found the chain explains the whole question
        judged, doubts = [], []
    if not lacks and not doubts and text_gaps is not None and reads_text(chain):
        doubts = list(text_gaps())
    return outcome(lacks, doubts, accepted=not judged)


def _restated(gap: str, found) -> bool:
    """Is a reading-check reason one abstain.reading_lacks restates (an unexplained phrase, a relation
    the question names elsewhere)? Those count once, as it says them."""
    if gap.startswith("the chain does not explain "):
        return True
    named = getattr(found, "named_elsewhere", None) or []
    return any(gap == f"{p!r} names the relation {r!r} better than the chain's hop does" for p, r in named)


def reads_text(chain: Sequence[HopState]) -> bool:
    """Does the chain rest on a hop read from text: a passage it chose, or a fact only a passage supports
    (no edit or fact file states it)?"""
    return any(h.answer and not h.generated and (h.fact is None or not getattr(h.fact, "stated", True))
               for h in chain)


def _stood_on_entity(chain: Sequence[HopState], plan: Plan | None) -> bool:
    return bool((plan is not None and plan.topic_id) or any(h.entity_id for h in chain))


def _left_by_plan(plan: Plan | None) -> list[str]:
    """The question's relation phrases the plan left to no hop, as the planner lists them."""
    return [str(p) for p in (getattr(plan, "unexplained", None) or []) if p and str(p).strip()]


def _peer_link(chain: Sequence[HopState], plan: Plan | None) -> str | None:
    """A hop the chain took that the planner found to be an unnamed link between two things of the
    same kind (kgtool.reason.agents.offline.peer_links): the answer past it is another entity's."""
    taken = {h.fact.fact_id for h in chain if getattr(h, "fact", None) is not None}
    found = [reason for fact_id, reason in (getattr(plan, "peer_links", None) or []) if fact_id in taken]
    return "; ".join(found) or None
