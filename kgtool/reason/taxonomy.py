"""Error taxonomies: the types a method's judge may give a failed step or chain.

A Verdict's `error_type` is a member of its method's taxonomy; the trace
recorder refuses any other value, so an analyst's histogram of error types
per method never holds a stray spelling.
"""
from __future__ import annotations

from enum import StrEnum

from kgtool.errors import KgToolError


class CareError(StrEnum):
    """The CARE critic's four checks, in the order it applies them."""

    LOCAL_RELEVANCE = "local_relevance"  # the hop's fact does not answer its sub-question
    BRIDGE_CONTINUITY = "bridge_continuity"  # the hop does not start where the previous one ended
    GROUNDING = "grounding"  # the evidence does not state the hop's fact
    FINAL_DEDUCTION = "final_deduction"  # the answer is not what the chain concludes


class VogError(StrEnum):
    """Why VoG's verifier flags a step for revision (the failure types of the paper's Appendix F.3)."""

    HALLUCINATED_FACT = "hallucinated_fact"  # the predicted observation is not what the graph says
    INCOMPLETE_EVIDENCE = "incomplete_evidence"  # the graph holds no fact for the step (or not the planned relation)
    ENTITY_DISAMBIGUATION = "entity_disambiguation"  # the step reached another entity than the one it predicted
    INTENT_DRIFT = "intent_drift"  # the step's relation does not serve the question while another retrieved one does


class SafeError(StrEnum):
    """SAFE's step-level error types (../shared/papers/safe.txt, Table 1), plus Correct.

    Members are listed in the order a feedback model checks them: Procedural,
    then Attribution, then Logical, then Final answer; the first that applies is
    the step's type. `category` and `definition` say what each one means.
    """

    # Procedural: the step is no valid, useful move on the graph
    OVERTHINKING = "overthinking"
    INEFFICIENCY = "inefficiency"
    OFF_TOPIC = "off_topic"
    REDUNDANCY = "redundancy"
    # Attribution: the fact the step cites
    CONTRADICTORY = "contradictory"
    UNSUPPORTED = "unsupported"
    INFORMATION_MISS = "information_miss"
    PREMATURE_ATTRIBUTION = "premature_attribution"
    # Logical: a relation inferred without a cited fact
    LOGICAL_FALLACY = "logical_fallacy"
    # Final answer
    PREMATURE_CONCLUSION = "premature_conclusion"
    WRONG_CONCLUSION = "wrong_conclusion"
    CORRECT = "correct"

    @property
    def category(self) -> str:
        return SAFE_CATEGORIES[self]

    @property
    def definition(self) -> str:
        return SAFE_DEFINITIONS[self]


SAFE_CATEGORIES = {
    **dict.fromkeys((SafeError.OVERTHINKING, SafeError.INEFFICIENCY, SafeError.OFF_TOPIC, SafeError.REDUNDANCY),
                    "procedural"),
    **dict.fromkeys((SafeError.CONTRADICTORY, SafeError.UNSUPPORTED, SafeError.INFORMATION_MISS,
                     SafeError.PREMATURE_ATTRIBUTION), "attribution"),
    SafeError.LOGICAL_FALLACY: "logical",
    **dict.fromkeys((SafeError.PREMATURE_CONCLUSION, SafeError.WRONG_CONCLUSION), "final"),
    SafeError.CORRECT: "none",
}

SAFE_DEFINITIONS = {
    SafeError.OVERTHINKING: "the step keeps extracting or deriving after every part of the question is answered",
    SafeError.INEFFICIENCY: "the step makes no move on the graph: no fact traversed, no new entity reached",
    SafeError.OFF_TOPIC: "the step leaves the path (it starts from an entity the path never reached) or follows "
                         "a relation no part of the question asks for",
    SafeError.REDUNDANCY: "the step repeats a fact or returns to an entity the path already holds (a loop)",
    SafeError.CONTRADICTORY: "the cited fact conflicts with the knowledge in force: an edit replaced it",
    SafeError.UNSUPPORTED: "the cited fact or entity is absent from the knowledge in force, or the fact does not "
                           "say what the step claims",
    SafeError.INFORMATION_MISS: "the step says nothing was found although a fact that answers its part is there",
    SafeError.PREMATURE_ATTRIBUTION: "the step jumps ahead: it answers a later part of the question, or starts "
                                     "from an entity reachable only through an edge it skipped",
    SafeError.LOGICAL_FALLACY: "the step infers a relation between two entities that no fact in force connects",
    SafeError.PREMATURE_CONCLUSION: "the final answer comes before every part of the question is answered",
    SafeError.WRONG_CONCLUSION: "the final answer is not the entity the grounded path ends at",
    SafeError.CORRECT: "the step is a valid, grounded and useful move (or the right final answer)",
}


class C2ragError(StrEnum):
    """Why a C2RAG constraint was not grounded in the graph (recorded on its step)."""

    NO_ANCHOR = "no_anchor"  # the constraint's known end matches no entity of the graph
    NO_CANDIDATES = "no_candidates"  # the anchors have no fact in scope
    INSUFFICIENT = "insufficient"  # the reranked candidates are ambiguous: N_eff > gamma
    UNRECOVERED = "unrecovered"  # textual recovery found no passage that answers the constraint
    UNGROUNDED = "ungrounded"  # both ends stayed unknown: no binding ever reached the constraint


class ReagentError(StrEnum):
    """The conflicts ReAgent's verifier, assembler and supervisor act on (kgtool/cypher/reagent/record.cypher)."""

    SLOT_CONFLICT = "slot_conflict"  # two accepted assertions give one slot different values
    STALE_EVIDENCE = "stale_evidence"  # an assertion rests on a fact not in force (retracted, superseded, hidden)
    BROKEN_BRIDGE = "broken_bridge"  # a partial answer does not lead on to the next sub-question
    CONTRADICTED = "contradicted"  # better-supported retrieved evidence states another value for the slot
    INCOMPLETE_PLAN = "incomplete_plan"  # the decomposition leaves part of the question unanswered
    UNSUPPORTED = "unsupported"  # no retrieved evidence could be verified for a sub-question


def check(taxonomy: type[StrEnum] | None, error_type: str | None) -> str | None:
    """`error_type` as a plain string, after checking it belongs to the taxonomy."""
    if error_type is None or taxonomy is None:
        return None if error_type is None else str(error_type)
    try:
        return taxonomy(error_type).value
    except ValueError:
        known = ", ".join(m.value for m in taxonomy)
        raise KgToolError(f"error type {error_type!r} is not in the {taxonomy.__name__} taxonomy ({known})") from None
