"""SAFE's prompts: the step generator and the step feedback model, with their validators.

The generator writes one atomic step per call (cite one numbered fact, infer
one link, or give the final answer) and reads the feedback on its last attempt
first; the feedback model names one type of the SafeError taxonomy, checked in
the taxonomy's order, with a diagnosis and guidance for the very next step.
Both reply with one JSON object; the user message is the task data as one JSON
object (see prompts/care.py for the conventions shared by every role).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from kgtool.core.types import CandidateFact
from kgtool.reason.agents.safe_base import ANSWER_MARK, Feedback, StepView
from kgtool.reason.prompts import spec as sch
from kgtool.reason.prompts.spec import PromptSpec
from kgtool.reason.prompts.spec import data as _data
from kgtool.reason.taxonomy import SafeError

# ------------------------------------------------------------------- generator

GENERATOR_SYSTEM = f"""ROLE: safe_generator
You answer a multi-hop question one small step at a time over a knowledge graph. Each call, you write ONLY the next step.

The numbered facts you are given (with their evidence sentences) are the only truth. The knowledge may have been edited and may contradict the real world; trust the facts, never your memory.

A step is exactly one of:
- attribution: cite ONE fact by its id; the step moves from the current entity to the other end of that fact. If no fact answers the question part, cite null: that says nothing was found.
- logical: ONE inference from the previous steps only (no new fact), giving the entity it concludes.
- final: the answer to the whole question, the entity the last step reached, and nothing else.

If "feedback" is present, your previous attempt at this step was rejected. Read its error type and diagnosis, and do what its guidance says: it overrides everything else. Never cite a fact listed under "rejected".
If "answer_now" is true, write the final step.

Reply with only one JSON object and no other text, one of:
{{"type": "attribution", "fact": "f2", "statement": "<one sentence>"}}
{{"type": "attribution", "fact": null, "statement": "<what is missing>"}}
{{"type": "logical", "answer": "<entity>", "statement": "<one sentence>"}}
{{"type": "final", "answer": "<entity>"}}
(The final step is what a trace shows as "{ANSWER_MARK} <entity>".)
"""


@dataclass
class GeneratedStep:
    kind: str
    fact_index: int | None = None  # 0-based index into the facts shown
    answer: str | None = None
    statement: str = ""


def fact_ids(n: int) -> list[str]:
    return [f"f{i}" for i in range(1, n + 1)]


def generator_prompt(question: str, subquestion: str, entity: str, facts: Sequence[CandidateFact],
                     previous: Sequence[StepView], feedback: Feedback | None, rejected: Sequence[str],
                     answer_now: bool) -> PromptSpec[GeneratedStep]:
    ids = fact_ids(len(facts))
    shown = [{"id": fid, "head": f.head, "relation": f.relation, "tail": f.tail, "evidence": f.evidence}
             for fid, f in zip(ids, facts)]
    data = {
        "question": question,
        "previous_steps": [_step_data(i, s) for i, s in enumerate(previous, start=1)],
        "current_entity": entity,
        "question_part": subquestion or None,
        "facts": shown,
        "rejected": [fid for fid, f in zip(ids, facts) if f.fact_id in set(rejected)],
        "feedback": None if feedback is None else {
            "error_type": feedback.error_type.value, "diagnosis": feedback.diagnosis, "guidance": feedback.guidance},
        "answer_now": answer_now,
    }
    cite = sch.nullable(sch.one_of(ids)) if ids else {"type": "null"}
    schema = sch.obj(type=sch.one_of(("attribution", "logical", "final")), fact=cite,
                     answer=sch.nullable(sch.name()), statement=sch.text())
    return PromptSpec("safe_generator", GENERATOR_SYSTEM, _data(data), generator_validator(len(facts)), schema)


def generator_validator(n_facts: int) -> Callable[[Any], GeneratedStep]:
    ids = fact_ids(n_facts)

    def validate(value: Any) -> GeneratedStep:
        if not isinstance(value, dict) or "type" not in value:
            raise ValueError('expected a JSON object with "type" (attribution, logical or final)')
        kind = str(value["type"]).strip().lower().replace(" ", "_")
        kind = {"final_answer": "final", "answer": "final"}.get(kind, kind)
        statement = str(value.get("statement") or "")
        if kind == "attribution":
            raw = value.get("fact")
            if raw is None or (isinstance(raw, str) and raw.strip().lower() in ("", "null", "none")):
                return GeneratedStep("attribution", None, None, statement)
            fid = f"f{raw}" if isinstance(raw, int) and not isinstance(raw, bool) else str(raw).strip().lower()
            if fid not in ids:
                known = ", ".join(ids) or "none (cite null)"
                raise ValueError(f"fact {raw!r} is not one of the given ids ({known})")
            return GeneratedStep("attribution", ids.index(fid), None, statement)
        if kind in ("logical", "final"):
            answer = value.get("answer")
            if isinstance(answer, str):
                answer = answer.replace(ANSWER_MARK, "").strip()
            if not isinstance(answer, str) or not answer:
                raise ValueError(f'a {kind} step needs "answer": the entity, as a non-empty string')
            return GeneratedStep(kind, None, answer, statement)
        raise ValueError(f'"type" must be attribution, logical or final, not {value["type"]!r}')

    return validate


# -------------------------------------------------------------------- feedback

def _taxonomy_lines() -> str:
    groups: dict[str, list[str]] = {}
    for member in SafeError:
        if member is SafeError.CORRECT:
            continue
        groups.setdefault(member.category, []).append(f"- {member.value}: {member.definition}")
    return "\n".join(f"{cat.capitalize()}:\n" + "\n".join(lines) for cat, lines in groups.items())


FEEDBACK_SYSTEM = f"""ROLE: safe_feedback
You check ONE step of a step-by-step answer to a multi-hop question over a knowledge graph, and tell the writer what to do next. The facts and evidence given are the only truth (the knowledge may be edited and contradict the real world); outside knowledge never counts.

Error types, checked in this order; report the FIRST that applies:
{_taxonomy_lines()}
If none applies the type is "correct".

How to check:
1. A final step: premature_conclusion if some part of the question has no step yet; wrong_conclusion if the answer is not the entity the last kept step reached; else correct.
2. Any other step, usefulness first (overthinking, inefficiency, off_topic, redundancy): a useless step is an error whether or not it is true.
3. Then an attribution step's fact: contradictory, unsupported, information_miss, premature_attribution; a logical step's inference: logical_fallacy.

"diagnosis": why, in one or two sentences, quoting the fact or evidence at stake.
"guidance": the single next action only (fix this step, or take the next step). When the next action is the final answer, say so and write it as "{ANSWER_MARK} <entity>".

Reply with only one JSON object and no other text:
{{"error_type": "<one type>", "diagnosis": "<why>", "guidance": "<the next single action>"}}
"""

_TYPE_ALIASES = {
    "correct_no_error": "correct", "no_error": "correct", "none": "correct", "ok": "correct", "valid": "correct",
    "offtopic": "off_topic", "redundant": "redundancy", "inefficient": "inefficiency",
    "unsupported_claim": "unsupported", "hallucination": "unsupported", "contradiction": "contradictory",
    "fallacy": "logical_fallacy", "info_miss": "information_miss", "missed_information": "information_miss",
}


def feedback_prompt(question: str, parts: Sequence[str], previous: Sequence[StepView], step: StepView,
                    available: Sequence[CandidateFact]) -> PromptSpec[Feedback]:
    data = {
        "question": question,
        "question_parts": list(parts),
        "previous_steps": [_step_data(i, s) for i, s in enumerate(previous, start=1)],
        "step_to_evaluate": _step_data(len(previous) + 1, step),
        "facts_available": [{"head": f.head, "relation": f.relation, "tail": f.tail, "evidence": f.evidence}
                            for f in available],
    }
    schema = sch.obj(error_type=sch.one_of(m.value for m in SafeError), diagnosis=sch.text(), guidance=sch.text())
    return PromptSpec("safe_feedback", FEEDBACK_SYSTEM, _data(data), validate_feedback, schema)


def error_type(raw: Any) -> SafeError:
    name = re.sub(r"[^a-z]+", "_", str(raw or "").strip().lower()).strip("_")
    name = _TYPE_ALIASES.get(name, name)
    try:
        return SafeError(name)
    except ValueError:
        known = ", ".join(m.value for m in SafeError)
        raise ValueError(f'"error_type" must be one of {known}, not {raw!r}') from None


def validate_feedback(value: Any) -> Feedback:
    if not isinstance(value, dict) or "error_type" not in value:
        raise ValueError('expected a JSON object with "error_type", "diagnosis" and "guidance"')
    kind = error_type(value["error_type"])
    guidance = str(value.get("guidance") or "").strip()
    if not guidance:
        raise ValueError('"guidance" must say what the next step should do')
    force = ANSWER_MARK.lower() in guidance.lower() or "final answer" in guidance.lower()
    return Feedback(kind, str(value.get("diagnosis") or "").strip(), guidance, force_answer=force)


def _step_data(number: int, step: StepView) -> dict:
    out: dict = {"step": number, "type": step.kind, "from": step.entity or None, "to": step.answer,
                 "statement": step.statement()}
    if step.fact is not None:
        out["fact"] = {"head": step.fact.head, "relation": step.fact.relation, "tail": step.fact.tail}
        out["evidence"] = step.evidence or step.fact.evidence
    elif step.evidence:
        out["evidence"] = step.evidence
    return out
