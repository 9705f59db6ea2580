"""ReAgent's agent prompts (the roles of the paper's Appendix A, in our own words) and their validators.

Each `*_prompt` returns a `PromptSpec` (kgtool.reason.prompts.care): a fixed
system prompt whose first line names the role (`ROLE: reagent_verifier`), the
task data as one JSON object, and a validator that turns the model's JSON into
the value the ReAgent loop uses, raising ValueError with a short,
model-readable problem when the shape is wrong (the client re-asks).

The knowledge may be edited and contradict the real world, so every prompt
says to trust the given facts, evidence and assertions over memory.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Sequence

from kgtool.core.types import PLACEHOLDER, CandidateFact, ChainLink, Judgement, Plan
from kgtool.reason.agents.reagent_base import Assembly, Claim, Conflict, Decision, Intervention
from kgtool.reason.prompts import spec as sch
from kgtool.reason.prompts.care import plan_validator
from kgtool.reason.prompts.spec import PromptSpec
from kgtool.reason.taxonomy import ReagentError

ROLES = ("reagent_decomposer", "reagent_verifier", "reagent_assembler", "reagent_supervisor", "reagent_controller")
ESCALATIONS = tuple(e.value for e in ReagentError)
_TRUST = ("The knowledge you are given may have been edited and can contradict the real world: the facts, evidence "
          "and assertions given here are the only truth, never your own memory.")


def _data(payload: dict) -> str:
    return json.dumps(payload, ensure_ascii=False, indent=2)


# ------------------------------------------------------------------ decomposer (A.1)

DECOMPOSER_SYSTEM = f"""ROLE: reagent_decomposer
You are the question decomposer in a team of agents (retriever, verifier, answer assembler, supervisor, controller) that answers multi-hop questions from a knowledge graph and documents. Split the question into the chain of simple sub-questions the other agents will answer one after another.

Rules:
1. Each sub-question asks for one fact: one relation of one entity.
2. The first sub-question names the question's topic entity as the question writes it.
3. Every later sub-question refers to the previous answer with the placeholder {PLACEHOLDER}, written exactly like that.
4. The last sub-question's answer answers the whole question.
5. Only restructure the question; add no facts of your own.
{_TRUST}

When the task data holds a "previous_decomposition" and a "problem", the team found that decomposition wanting: give a different decomposition that avoids the problem, or the same one if you are sure it is right.

Reply with only a JSON object:
{{"topic": "<topic entity as written>", "sub_questions": ["<hop 1>", "<hop 2 with {PLACEHOLDER}>", "..."], "decomposition_reasoning": "<one sentence>"}}

Example
Question: Which language is official in the country where the author of Don Quixote was a citizen?
{{"topic": "Don Quixote", "sub_questions": ["Who is the author of Don Quixote?", "Which country is {PLACEHOLDER} a citizen of?", "What is the official language of {PLACEHOLDER}?"], "decomposition_reasoning": "author, then citizenship, then official language"}}
"""


def decomposer_prompt(question: str, previous: Plan | None = None, problem: str = "") -> PromptSpec[Plan]:
    payload: dict[str, Any] = {"question": question}
    if previous is not None:
        payload["previous_decomposition"] = {"topic": previous.topic, "sub_questions": list(previous.subquestions)}
        payload["problem"] = problem
    schema = sch.obj(topic=sch.name(), sub_questions=sch.array(sch.text(sch.QUESTION_CHARS), sch.PLAN_HOPS, 1),
                     decomposition_reasoning=sch.text(160))
    return PromptSpec("reagent_decomposer", DECOMPOSER_SYSTEM, _data(payload), plan_validator(question), schema)


# ------------------------------------------------------------------ verifier (A.3)

VERIFIER_SYSTEM = f"""ROLE: reagent_verifier
You are the verifier in a team of agents answering a multi-hop question. The retriever brings you candidate evidence for one sub-question: knowledge-graph triples or sentences of documents, each with the answer it would give. Decide which candidates you can accept as verified facts for the sub-question.

Accept a candidate only if:
1. it starts from the entity the sub-question is about,
2. its evidence states the answer for what the sub-question asks,
3. it does not contradict the facts already verified (given as "verified_facts").
{_TRUST}

If two candidates give different answers to a question that has one answer, that is a conflict: keep the better-supported one and report the conflict.

Reply with only a JSON object:
{{"verified_facts": ["<ids of accepted candidates, best first>"], "conflicts_detected": ["<short description>", "..."], "local_backtracking_action": "<what you discarded and why, or none>"}}
"""


def _candidate_ids(n: int) -> list[str]:
    return [f"c{i}" for i in range(1, n + 1)]


def verifier_prompt(subquestion: str, entity: str, candidates: Sequence[CandidateFact],
                    verified: Sequence[str]) -> PromptSpec[list[Judgement]]:
    ids = _candidate_ids(len(candidates))
    rows = []
    for cid, fact in zip(ids, candidates):
        answer = fact.head if fact.direction == "in" else fact.tail
        rows.append({"id": cid, "source": "document" if fact.kind == "passage" else "knowledge graph",
                     "head": fact.head, "relation": fact.relation, "tail": fact.tail, "evidence": fact.evidence,
                     "answer": answer})
    user = _data({"sub_question": subquestion, "entity": entity, "candidates": rows, "verified_facts": list(verified)})
    schema = sch.obj(verified_facts=sch.array(sch.one_of(ids), len(ids)), conflicts_detected=sch.array(sch.text(120), 3),
                     local_backtracking_action=sch.text(160))
    return PromptSpec("reagent_verifier", VERIFIER_SYSTEM, user, verifier_validator([c.id for c in candidates]),
                      schema)


def verifier_validator(candidate_ids: Sequence[str]) -> Callable[[Any], list[Judgement]]:
    """Judgements in candidate order: the accepted ones pass, scored by the order the verifier gave."""
    ids = _candidate_ids(len(candidate_ids))

    def validate(value: Any) -> list[Judgement]:
        if not isinstance(value, dict) or not isinstance(value.get("verified_facts"), list):
            raise ValueError('expected an object with a "verified_facts" list of candidate ids')
        accepted: list[str] = []
        for raw in value["verified_facts"]:
            cid = f"c{raw}" if isinstance(raw, int) and not isinstance(raw, bool) else str(raw).strip().lower()
            if cid not in ids:
                raise ValueError(f"unknown candidate id {raw!r}; the ids are {', '.join(ids)}")
            if cid not in accepted:
                accepted.append(cid)
        conflicts = value.get("conflicts_detected", [])
        if not isinstance(conflicts, list):
            raise ValueError('"conflicts_detected" must be a list of strings')
        note = "; ".join(str(c) for c in conflicts)
        out = []
        for fact_id, cid in zip(candidate_ids, ids):
            ok = cid in accepted
            score = 1.0 - accepted.index(cid) / (len(accepted) + 1) if ok else 0.0
            out.append(Judgement(fact_id, round(score, 6), ok, ok, ok, ok,
                                 reason=("verified" if ok else "not verified") + (f" ({note})" if note else "")))
        return out

    return validate


# ------------------------------------------------------------------ answer assembler (A.4)

ASSEMBLER_SYSTEM = f"""ROLE: reagent_assembler
You are the answer assembler in a team of agents answering a multi-hop question. You get the partial answers the verifier accepted, one per sub-question, each with its evidence. Combine them into the final answer, or escalate to the supervisor when they do not fit together.

Escalate when: a partial answer is missing ("unsupported"), a step does not start where the previous one ended ("broken_bridge"), or the chain does not answer the whole question ("incomplete_plan").
{_TRUST}

Reply with only a JSON object:
{{"final_answer": "<the answer, as the last partial answer names it>" or null, "partial_answer_synthesis": ["<how the parts combine>"], "escalation_signal": "none" or "<short reason>", "escalation_type": null or one of "unsupported", "broken_bridge", "incomplete_plan"}}
"""


def assembler_prompt(question: str, links: Sequence[ChainLink]) -> PromptSpec[Assembly]:
    parts = [{"hop": link.hop, "sub_question": link.subquestion, "entity": link.entity_in, "answer": link.answer,
              "evidence": link.evidence} for link in links]
    schema = sch.obj(final_answer=sch.nullable(sch.name()), partial_answer_synthesis=sch.array(sch.text(160), 3),
                     escalation_signal=sch.text(120), escalation_type=sch.nullable(sch.one_of(ESCALATIONS)))
    return PromptSpec("reagent_assembler", ASSEMBLER_SYSTEM, _data({"question": question, "partial_answers": parts}),
                      validate_assembly, schema)


def validate_assembly(value: Any) -> Assembly:
    if not isinstance(value, dict) or "final_answer" not in value:
        raise ValueError('expected an object with "final_answer" and "escalation_signal"')
    answer = value.get("final_answer")
    if answer is not None and not isinstance(answer, str):
        raise ValueError('"final_answer" must be a string or null')
    signal = value.get("escalation_signal", "none")
    signal = None if signal is None or str(signal).strip().lower() in ("", "none", "no") else str(signal).strip()
    kind = value.get("escalation_type")
    if signal is not None:
        kind = kind or ReagentError.INCOMPLETE_PLAN.value
        if kind not in ESCALATIONS:
            raise ValueError(f'"escalation_type" must be one of {", ".join(ESCALATIONS)}')
    notes = value.get("partial_answer_synthesis") or []
    return Assembly((answer or "").strip() or None, signal, kind if signal else None, None,
                    [str(n) for n in notes] if isinstance(notes, list) else [str(notes)])


# ------------------------------------------------------------------ supervisor (A.5)

SUPERVISOR_SYSTEM = f"""ROLE: reagent_supervisor
You are the supervisor of a team of agents answering a multi-hop question. The team's accepted assertions (who asserted what, at which time step) have conflicts that local fixes did not resolve. Each conflict lists its minimal conflict set (assertions that cannot all hold) and a suggested culprit. Decide whether to roll every agent back to the last consistent checkpoint before one assertion, discarding it and everything asserted after it.

Prefer discarding the assertion that came later or rests on weaker evidence; keep what the rest of the chain agrees with.
{_TRUST}

Reply with only a JSON object:
{{"conflict_summary": ["<the contradictory sets, briefly>"], "global_backtracking_decision": "rollback" or "none", "rollback_conflict": "<conflict id, e.g. k1>" or null, "discard": "<the assertion id to give up first>" or null, "updated_consensus_state": ["<assertions that stay accepted>"], "reasoning_notes": "<why>"}}
"""


def supervisor_prompt(question: str, conflicts: Sequence[Conflict], claims: Sequence[Claim]) -> PromptSpec[Decision]:
    accepted = [c for c in claims if c.status == "accepted"]
    rows = [{"id": f"k{i}", "kind": c.kind, "detail": c.detail, "conflict_set": list(c.assertion_ids),
             "suggested_culprit": c.culprit_id} for i, c in enumerate(conflicts, start=1)]
    assertions = [{"id": c.id, "t": c.t, "agent": c.agent, "kind": c.kind, "hop": c.hop, "value": c.value,
                   "text": c.text} for c in accepted]
    user = _data({"question": question, "conflicts": rows, "assertions": assertions})
    members = sorted({a for c in conflicts for a in c.assertion_ids})
    schema = sch.obj(conflict_summary=sch.array(sch.text(160), 3),
                     global_backtracking_decision=sch.one_of(("rollback", "none")),
                     rollback_conflict=sch.nullable(sch.one_of(r["id"] for r in rows)) if rows else {"type": "null"},
                     discard=sch.nullable(sch.one_of(members)) if members else {"type": "null"},
                     updated_consensus_state=sch.array(sch.text(120), 5), reasoning_notes=sch.text(160))
    return PromptSpec("reagent_supervisor", SUPERVISOR_SYSTEM, user, supervisor_validator(conflicts, claims), schema)


def supervisor_validator(conflicts: Sequence[Conflict], claims: Sequence[Claim]) -> Callable[[Any], Decision]:
    times = {c.id: c.t for c in claims}

    def validate(value: Any) -> Decision:
        if not isinstance(value, dict) or "global_backtracking_decision" not in value:
            raise ValueError('expected an object with "global_backtracking_decision"')
        decision = str(value["global_backtracking_decision"] or "none").strip().lower()
        summary = "; ".join(str(s) for s in value.get("conflict_summary") or []) or str(value.get("reasoning_notes", ""))
        if decision in ("none", "no", ""):
            return Decision(False, None, summary)
        if not conflicts:
            raise ValueError("there is no conflict to roll back; answer \"none\"")
        ref = value.get("rollback_conflict") or "k1"
        try:
            conflict = conflicts[int(str(ref).strip().lower().lstrip("k")) - 1]
        except (ValueError, IndexError):
            raise ValueError(f"unknown conflict {ref!r}; the conflicts are k1..k{len(conflicts)}") from None
        discard = value.get("discard") or conflict.culprit_id
        if discard not in conflict.assertion_ids:
            raise ValueError(f"{discard!r} is not in the conflict set of {ref}: {', '.join(conflict.assertion_ids)}")
        chosen = Conflict(conflict.kind, list(conflict.assertion_ids), discard, times.get(discard, conflict.culprit_t),
                          conflict.detail, conflict.slot, conflict.hop)
        return Decision(True, chosen, summary or f"{conflict.kind}: {conflict.detail}")

    return validate


# ------------------------------------------------------------------ controller (A.6)

CONTROLLER_SYSTEM = f"""ROLE: reagent_controller
You are the controller, overseeing a team of agents answering a multi-hop question. You step in only when conflicts keep coming back after local and global backtracking. Choose one intervention:
- "challenge": question the decomposition and ask for more evidence (documents as well as the knowledge graph); allowed once;
- "override": accept the best-supported completed line of reasoning as it stands;
- "escalate": give up and answer that the question cannot be answered reliably;
- "none": leave things as they are.
{_TRUST}

Reply with only a JSON object:
{{"intervention_type": "challenge" | "override" | "escalate" | "none", "target_of_intervention": "<agent or assertion>", "rationale": "<why>", "meta_notes": "<optional>"}}
"""


def controller_prompt(question: str, *, conflicts: int, reason: str, challenged: bool,
                      has_branch: bool) -> PromptSpec[Intervention]:
    user = _data({"question": question, "conflicts_so_far": conflicts, "last_conflict": reason,
                  "challenge_already_used": challenged, "a_completed_line_of_reasoning_exists": has_branch})
    schema = sch.obj(intervention_type=sch.one_of(("challenge", "override", "escalate", "none")),
                     target_of_intervention=sch.text(80), rationale=sch.text(160), meta_notes=sch.text(80))
    return PromptSpec("reagent_controller", CONTROLLER_SYSTEM, user, validate_intervention, schema)


def validate_intervention(value: Any) -> Intervention:
    if not isinstance(value, dict) or "intervention_type" not in value:
        raise ValueError('expected an object with "intervention_type"')
    kind = str(value["intervention_type"]).strip().lower()
    kind = {"escalate": "disclaim"}.get(kind, kind)
    try:
        return Intervention(kind, str(value.get("target_of_intervention") or ""), str(value.get("rationale") or ""))
    except ValueError:
        raise ValueError('"intervention_type" must be one of challenge, override, escalate, none') from None
