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
- failing any of these, an answer is `unverified` (its partial chain kept) and
  no answer is `no_answer`;
- either way the Run and the result say why (`reason`); when no entity of the
  question is in the graph, the reason says exactly that.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from kgtool.core.types import Plan
from kgtool.reason.context import HopState

NO_ENTITY = "no entity of the question is in the graph"


@dataclass(frozen=True)
class Settled:
    status: str  # answered | unverified | no_answer
    reason: str | None  # why the status is not `answered` (None when it is)
    no_entity: bool = False  # nothing of the question linked to the graph


def settle(method_status: str, answer: str | None, chain: Sequence[HopState], plan: Plan | None, *,
           method_reason: str | None = None,
           question_mentions: Callable[[], int] | None = None,
           reading_gaps: Callable[[], list[str]] | None = None,
           text_gaps: Callable[[], list[str]] | None = None) -> Settled:
    """The honest status of a method's outcome (see the module docstring).

    `plan` is the plan of the whole question the chain followed (None when the
    method's planner is not the shared one); `method_reason` what the method's
    judge said when it did not accept; `question_mentions` counts the question's
    mentions that link to the graph, and is asked only when the run never stood
    on an entity; `reading_gaps` scores the question's relation phrases against
    the chain's relations (kgtool.reason.explains) and lists what does not fit,
    asked only of a chain that passes every other check; `text_gaps` reads what the passages say of the
    answer (kgtool.reason.text_evidence), asked only of a chain that reads text (`reads_text`) and passes
    every other check: a chain of stated facts is never asked.
    """
    if not _stood_on_entity(chain, plan) and question_mentions is not None and question_mentions() == 0:
        return Settled("unverified" if answer else "no_answer", NO_ENTITY, no_entity=True)
    if not answer:
        return Settled("no_answer", method_reason or _first_gap(chain, plan) or "no chain reached an answer")
    left = _left_by_plan(plan)
    gaps = [g for g in (_short(chain, plan), _unsupported(chain), _peer_link(chain, plan)) if g]
    judged = [] if method_status == "answered" else [method_reason or "the method's own check did not accept the chain"]
    if not judged and not gaps and reading_gaps is not None:
        read = reading_gaps()
        # the planner saw only its own plan and scorer; the reading check reads the chain taken with every
        # reading it has (roles, WordNet's doers): a phrase it finds a hop for is explained
        left = [p for p in left if p not in getattr(read, "explained", ())]
        gaps = list(read)
    if left:
        gaps.insert(0, "the chain does not explain " + ", ".join(repr(p) for p in left))
    gaps = judged + gaps
    if not gaps and text_gaps is not None and reads_text(chain):
        gaps = list(text_gaps())
    if gaps:
        return Settled("unverified", "; ".join(gaps))
    return Settled("answered", None)


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


def _planned_hops(plan: Plan | None) -> int:
    """How many hops the plan asks for: its relation path when it chose one, else its sub-questions."""
    if plan is None:
        return 0
    relations = getattr(plan, "relations", None) or []
    return len(relations) if relations else len(plan.subquestions)


def _short(chain: Sequence[HopState], plan: Plan | None) -> str | None:
    reached = len({h.hop for h in chain if h.answer})
    wanted = _planned_hops(plan)
    if wanted and reached < wanted:
        return f"the chain reaches {reached} of the {wanted} hops the plan asks for"
    return None


def _unsupported(chain: Sequence[HopState]) -> str | None:
    """Hops whose answer rests on no stored fact or passage (generated, or with no answer)."""
    bad = sorted({h.hop for h in chain if h.generated or not h.answer})
    if not bad:
        return None
    return "hop " + ", ".join(map(str, bad)) + (" is" if len(bad) == 1 else " are") + \
        " not supported by a fact or passage"


def _first_gap(chain: Sequence[HopState], plan: Plan | None) -> str | None:
    return _short(chain, plan) or _unsupported(chain)
