"""CARE's agent prompts (planner, selector, critic, fallback generator) and their validators.

Each `*_prompt` function returns a `PromptSpec`: the system prompt (fixed per
role, so it caches well), the user message (the task data as one JSON object,
which models read reliably and tests can parse), and a validator that turns the
model's decoded JSON into the value the loop uses, raising ValueError with a
short, model-readable problem when the shape is wrong.

The knowledge the loop reasons over may be edited and contradict the real
world, so every prompt tells the model to trust the given facts and evidence
over its own memory; that is the point of CARE's evidence-only protocol.
"""
from __future__ import annotations

import math
import re
from typing import Any, Callable, Sequence

from kgtool.core.types import (
    PLACEHOLDER,
    CandidateFact,
    ChainLink,
    Judgement,
    Plan,
    Verdict,
)
from kgtool.reason.prompts import spec as sch
from kgtool.reason.prompts.spec import PromptSpec, role_of, require_topic_in
from kgtool.reason.prompts.spec import data as _data
from kgtool.reason.taxonomy import CareError

ROLES = ("planner", "selector", "critic", "generator")
ERROR_TYPES = tuple(e.value for e in CareError)
MAX_SUBQUESTIONS = 10

PLAN_SCHEMA = sch.obj(topic=sch.name(), subquestions=sch.array(sch.text(sch.QUESTION_CHARS), sch.PLAN_HOPS, 1))


# ---------------------------------------------------------------------- planner

PLANNER_SYSTEM = f"""ROLE: planner
You turn a multi-hop question into a chain of simple sub-questions, one per hop, in the order they have to be answered. Each answer feeds the next sub-question.

Rules:
1. Every sub-question asks for a single fact: one relation of one entity.
2. The first sub-question names the topic entity of the question, written as in the question.
3. Every later sub-question refers to the answer of the sub-question before it with the placeholder {PLACEHOLDER}, exactly as written here.
4. The answer to the last sub-question is the answer to the whole question.
5. Only restructure the question. Do not answer anything and do not add facts you know about the entities.

Reply with only a JSON object and no other text:
{{"topic": "<the topic entity as written in the question>", "subquestions": ["<hop 1>", "<hop 2 with {PLACEHOLDER}>", "..."]}}

Examples
Question: In which city are the headquarters of the company that makes the Walkman?
{{"topic": "Walkman", "subquestions": ["Which company makes the Walkman?", "In which city are the headquarters of {PLACEHOLDER}?"]}}

Question: Who is married to the head of government of Canada?
{{"topic": "Canada", "subquestions": ["Who is the head of government of Canada?", "Who is the spouse of {PLACEHOLDER}?"]}}

Question: What is the official language of the country whose citizen wrote Don Quixote?
{{"topic": "Don Quixote", "subquestions": ["Who is the author of Don Quixote?", "Which country is {PLACEHOLDER} a citizen of?", "What is the official language of {PLACEHOLDER}?"]}}

Question: On which continent is the country of citizenship of the founder of the company that developed Windows?
{{"topic": "Windows", "subquestions": ["Which company developed Windows?", "Who founded {PLACEHOLDER}?", "What is the country of citizenship of {PLACEHOLDER}?", "On which continent is {PLACEHOLDER} located?"]}}
"""

_PLACEHOLDER_VARIANTS = re.compile(r"\[\s*ent(?:ity)?\s*\]", re.IGNORECASE)


def planner_prompt(question: str) -> PromptSpec[Plan]:
    return PromptSpec("planner", PLANNER_SYSTEM, _data({"question": question}), plan_validator(question),
                      PLAN_SCHEMA)


def plan_validator(question: str) -> Callable[[Any], Plan]:
    """validate_plan, and the topic must be an entity of this question (not an example's)."""

    def validate(value: Any) -> Plan:
        plan = validate_plan(value)
        require_topic_in(question, plan.topic)
        return plan

    return validate


def validate_plan(value: Any) -> Plan:
    """A Plan from the planner's JSON; tolerates a bare list of sub-questions."""
    topic: Any = None
    if isinstance(value, dict):
        subquestions = value.get("subquestions", value.get("sub_questions"))
        topic = value.get("topic")
    else:
        subquestions = value
    if not isinstance(subquestions, list) or not subquestions:
        raise ValueError('"subquestions" must be a non-empty list of strings')
    if len(subquestions) > MAX_SUBQUESTIONS:
        raise ValueError(f"{len(subquestions)} sub-questions is too many; use one per hop")
    cleaned: list[str] = []
    for i, item in enumerate(subquestions, start=1):
        if not isinstance(item, str) or not item.strip():
            raise ValueError(f"sub-question {i} must be a non-empty string")
        text = _PLACEHOLDER_VARIANTS.sub(PLACEHOLDER, item.strip())
        if i == 1 and PLACEHOLDER in text:
            raise ValueError(f"the first sub-question must name the topic entity instead of {PLACEHOLDER}")
        if i > 1 and PLACEHOLDER not in text:
            raise ValueError(f"sub-question {i} must refer to the previous answer as {PLACEHOLDER}")
        cleaned.append(text)
    if topic is not None and not isinstance(topic, str):
        raise ValueError('"topic" must be a string')
    return Plan(subquestions=cleaned, topic=(topic or "").strip() or None)


# --------------------------------------------------------------------- selector

SELECTOR_SYSTEM = """ROLE: selector
You check candidate facts from a knowledge graph for one sub-question of a multi-hop question. For every candidate, decide whether it answers the sub-question directly, judging ONLY from the candidate's triple and its evidence sentence.

The evidence sentence is authoritative. The knowledge may have been edited and can contradict the real world; never accept or reject a candidate because of what you know yourself.

Judge each candidate by four rules:
1. entity_match: the entity the sub-question asks about ("entity") is the entity the triple starts from, usually its head; the other end of the triple ("answer") is what the candidate would answer.
2. evidence_entails: the evidence sentence states that answer for the sub-question, possibly in other words.
3. relation_fits: the relation asks for the kind of thing the sub-question wants (a place for a location question, a person for a "who" question, and so on).
4. not_self_loop: head and tail are different entities.
If any rule fails, the score must be 0. Otherwise give a score from 0 to 1 for how surely the candidate answers the sub-question.

Reply with only a JSON object holding one judgement per candidate, in the order given, and no other text:
{"judgements": [{"id": "c1", "entity_match": true, "evidence_entails": true, "relation_fits": true, "not_self_loop": true, "score": 0.9, "reason": "<a few words>"}]}
"""


def _candidate_ids(n: int) -> list[str]:
    # short ids keep fact ids (long hashes) out of the prompt and make echoes reliable
    return [f"c{i}" for i in range(1, n + 1)]


def selector_prompt(
    subquestion: str, entity: str, candidates: Sequence[CandidateFact]
) -> PromptSpec[list[Judgement]]:
    ids = _candidate_ids(len(candidates))
    rows = []
    for cid, fact in zip(ids, candidates):
        _, answer = fact.answer_from(fact.head_id if fact.direction == "out" else fact.tail_id)
        rows.append(
            {
                "id": cid,
                "head": fact.head,
                "relation": fact.relation,
                "tail": fact.tail,
                "evidence": fact.evidence,
                "answer": answer,
            }
        )
    user = _data({"sub_question": subquestion.replace(PLACEHOLDER, entity), "entity": entity, "candidates": rows})
    return PromptSpec("selector", SELECTOR_SYSTEM, user, selector_validator([c.fact_id for c in candidates]),
                      selector_schema(len(candidates)))


def selector_schema(n: int) -> dict:
    judgement = sch.obj(id=sch.one_of(_candidate_ids(n)), entity_match=sch.boolean(), evidence_entails=sch.boolean(),
                      relation_fits=sch.boolean(), not_self_loop=sch.boolean(), score=sch.number(), reason=sch.text(80))
    return sch.obj(judgements=sch.array(judgement, n, n))


def selector_validator(fact_ids: Sequence[str]) -> Callable[[Any], list[Judgement]]:
    """Validator mapping the selector's per-id verdicts onto `fact_ids`, in order."""
    ids = _candidate_ids(len(fact_ids))

    def validate(value: Any) -> list[Judgement]:
        items = _selector_items(value)
        by_id: dict[str, dict] = {}
        for item in items:
            if not isinstance(item, dict) or "id" not in item:
                raise ValueError('every list item must be an object with an "id"')
            cid = _candidate_id(item["id"])
            if cid not in ids:
                raise ValueError(f"unknown candidate id {item['id']!r}; the ids are {', '.join(ids)}")
            if cid in by_id:
                raise ValueError(f"candidate {cid} is judged twice")
            by_id[cid] = item
        missing = [cid for cid in ids if cid not in by_id]
        if missing:
            raise ValueError(f"candidate(s) {', '.join(missing)} have no judgement")
        return [_judgement(fact_id, cid, by_id[cid]) for fact_id, cid in zip(fact_ids, ids)]

    return validate


def _selector_items(value: Any) -> list:
    if isinstance(value, dict):
        for key in ("judgements", "candidates", "results"):
            if isinstance(value.get(key), list):
                return value[key]
        if "id" in value:  # a single candidate answered as one object
            return [value]
    if isinstance(value, list):
        return value
    raise ValueError("expected a JSON list with one object per candidate")


def _candidate_id(raw: Any) -> str:
    if isinstance(raw, bool):
        raise ValueError(f"candidate id {raw!r} is not one of the given ids")
    if isinstance(raw, int):
        return f"c{raw}"
    return str(raw).strip().lower()


def _judgement(fact_id: str, cid: str, item: dict) -> Judgement:
    score = _as_score(item.get("score"), f"score of {cid}")
    # flags a model leaves out follow its score: a positive score means it found no rule broken
    flags = {
        name: _as_bool(item[name], f"{name} of {cid}") if name in item else score > 0
        for name in ("entity_match", "evidence_entails", "relation_fits", "not_self_loop")
    }
    if not all(flags.values()):
        score = 0.0
    reason = item.get("reason", "")
    return Judgement(fact_id=fact_id, score=score, reason=str(reason or ""), **flags)


# ----------------------------------------------------------------------- critic

CRITIC_SYSTEM = """ROLE: critic
You audit a multi-hop reasoning chain built over an edited, counterfactual knowledge base. The facts and evidence in the chain are the only truth: they may contradict the real world, and that alone is never a reason to reject the chain.

Check the chain in this order:
1. local_relevance: the fact of step i answers sub-question i.
2. bridge_continuity: the output entity of step i is exactly the input entity of step i+1.
3. grounding: the fact of each step is stated by that step's evidence; a generated step (no stored fact) must have its answer stated by its evidence. Outside knowledge does not count as grounding.
4. final_deduction: the final answer is the output of the last step and answers the original question.

Reply with only a JSON object and no other text:
{"valid": true or false, "problem_steps": [<step numbers, counted from 1>], "error_type": null or one of "local_relevance", "bridge_continuity", "grounding", "final_deduction", "explanation": "<one or two sentences>"}
A valid chain has "problem_steps": [] and "error_type": null. For an invalid chain, list the earliest failing step first and give the type of that failure; a final_deduction failure belongs to the last step.

Example of a valid chain (the facts are counterfactual, which is fine):
{"question": "Who leads the company that makes the Walkman?", "steps": [
 {"step": 1, "sub_question": "Which company makes the Walkman?", "input": "Walkman", "fact": {"head": "Walkman", "relation": "manufacturer", "tail": "Nintendo"}, "evidence": "The Walkman is made by Nintendo.", "output": "Nintendo", "generated": false},
 {"step": 2, "sub_question": "Who is the chief executive of Nintendo?", "input": "Nintendo", "fact": {"head": "Nintendo", "relation": "chief executive officer", "tail": "Ada Lovelace"}, "evidence": "Ada Lovelace is the CEO of Nintendo.", "output": "Ada Lovelace", "generated": false}],
 "final_answer": "Ada Lovelace"}
{"valid": true, "problem_steps": [], "error_type": null, "explanation": "Each fact answers its sub-question, the steps connect, and the answer is the last output."}

Example of an invalid chain:
{"question": "What currency is used in the country where the Eiffel Tower stands?", "steps": [
 {"step": 1, "sub_question": "In which country is the Eiffel Tower?", "input": "Eiffel Tower", "fact": {"head": "Eiffel Tower", "relation": "country", "tail": "Japan"}, "evidence": "The Eiffel Tower is located in Japan.", "output": "Japan", "generated": false},
 {"step": 2, "sub_question": "What currency is used in France?", "input": "France", "fact": {"head": "France", "relation": "currency", "tail": "euro"}, "evidence": "France uses the euro.", "output": "euro", "generated": false}],
 "final_answer": "euro"}
{"valid": false, "problem_steps": [2], "error_type": "bridge_continuity", "explanation": "Step 1 ends at Japan but step 2 starts from France."}
"""

_ERROR_ALIASES = {
    "relevance": "local_relevance",
    "local_relevance_check": "local_relevance",
    "bridge": "bridge_continuity",
    "bridge_consistency": "bridge_continuity",
    "continuity": "bridge_continuity",
    "factual_grounding": "grounding",
    "grounding_check": "grounding",
    "final": "final_deduction",
    "deduction": "final_deduction",
}


def critic_prompt(question: str, chain: Sequence[ChainLink], answer: str) -> PromptSpec[Verdict]:
    steps = [_step_data(link) for link in chain]
    user = _data({"question": question, "steps": steps, "final_answer": answer})
    return PromptSpec("critic", CRITIC_SYSTEM, user, critic_validator(len(chain)), critic_schema(len(chain)))


def critic_schema(n_steps: int) -> dict:
    return sch.obj(valid=sch.boolean(), problem_steps=sch.array(sch.integer(1, max(1, n_steps)), max(1, n_steps)),
                 error_type=sch.nullable(sch.one_of(ERROR_TYPES)), explanation=sch.text())


def _step_data(link: ChainLink) -> dict:
    fact = link.fact
    return {
        "step": link.hop,
        "sub_question": link.subquestion.replace(PLACEHOLDER, link.entity_in),
        "input": link.entity_in,
        "fact": {"head": fact.head, "relation": fact.relation, "tail": fact.tail} if fact else None,
        "evidence": link.evidence or (fact.evidence if fact else ""),
        "output": link.answer,
        "generated": link.generated,
    }


def critic_validator(n_steps: int) -> Callable[[Any], Verdict]:
    def validate(value: Any) -> Verdict:
        if not isinstance(value, dict) or "valid" not in value:
            raise ValueError('expected a JSON object with "valid", "problem_steps", "error_type" and "explanation"')
        valid = _as_bool(value["valid"], '"valid"')
        steps = _steps(value.get("problem_steps", []), n_steps)
        explanation = str(value.get("explanation") or "")
        if valid:
            if steps:
                raise ValueError('"valid" is true but "problem_steps" is not empty; make them agree')
            return Verdict(valid=True, explanation=explanation)
        if not steps:
            raise ValueError('"valid" is false, so "problem_steps" must name the failing step')
        return Verdict(
            valid=False,
            failed_hop=min(steps),
            error_type=_error_type(value.get("error_type")),
            explanation=explanation,
        )

    return validate


def _steps(raw: Any, n_steps: int) -> list[int]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raw = [raw]
    steps = []
    for item in raw:
        try:
            step = int(str(item).strip().lower().removeprefix("step").strip())
        except ValueError:
            raise ValueError(f'"problem_steps" must hold step numbers, not {item!r}') from None
        if not 1 <= step <= n_steps:
            raise ValueError(f"step {step} does not exist; steps are numbered 1 to {n_steps}")
        steps.append(step)
    return steps


def _error_type(raw: Any) -> str:
    name = re.sub(r"[\s\-]+", "_", str(raw or "").strip().lower())
    name = _ERROR_ALIASES.get(name, name)
    if name not in ERROR_TYPES:
        raise ValueError(f'"error_type" must be one of {", ".join(ERROR_TYPES)} for an invalid chain, not {raw!r}')
    return name


# -------------------------------------------------------------------- generator

GENERATOR_SYSTEM = """ROLE: generator
You answer one sub-question of a multi-hop question using only the numbered evidence sentences you are given. They may describe an edited world that contradicts real facts; trust them over anything you know.

Rules:
1. The answer must be an entity that one evidence sentence states as the answer for the given entity; copy its name exactly as written in that sentence.
2. If no sentence states the answer, the answer is null. Never guess and never use outside knowledge.

Reply with only a JSON object and no other text:
{"answer": "<entity name>" or null, "evidence": <number of the supporting sentence> or null, "reason": "<a few words>"}
"""

_NO_ANSWER = {"", "none", "null", "unknown", "n/a", "na", "not found", "no answer", "cannot answer"}


def generator_prompt(subquestion: str, entity: str, evidence: Sequence[str]) -> PromptSpec[str | None]:
    sentences = [{"n": i, "text": text} for i, text in enumerate(evidence, start=1)]
    user = _data({"sub_question": subquestion.replace(PLACEHOLDER, entity), "entity": entity, "evidence": sentences})
    schema = sch.obj(answer=sch.nullable(sch.name()), evidence=sch.nullable(sch.integer(1, max(1, len(evidence)))),
                   reason=sch.text(80))
    return PromptSpec("generator", GENERATOR_SYSTEM, user, generator_validator(evidence), schema)


def generator_validator(evidence: Sequence[str]) -> Callable[[Any], str | None]:
    """Validator that only lets through answers found verbatim in the evidence."""
    texts = [_normal(text) for text in evidence]

    def validate(value: Any) -> str | None:
        if not isinstance(value, dict) or "answer" not in value:
            raise ValueError('expected a JSON object with "answer", "evidence" and "reason"')
        answer = value["answer"]
        if answer is None or (isinstance(answer, str) and answer.strip().lower() in _NO_ANSWER):
            return None
        if not isinstance(answer, str):
            raise ValueError('"answer" must be a string or null')
        needle = _normal(answer)
        if not needle.strip() or not any(needle in text for text in texts):
            raise ValueError(
                f"the answer {answer!r} does not appear in the evidence; copy the name from a sentence or answer null"
            )
        return answer.strip()

    return validate


def _normal(text: str) -> str:
    # word-bounded, case- and punctuation-blind containment
    return " " + " ".join(re.findall(r"\w+", text.lower())) + " "


# ---------------------------------------------------------------------- helpers

def _as_bool(raw: Any, name: str) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, (int, float)) and raw in (0, 1):
        return bool(raw)
    if isinstance(raw, str) and raw.strip().lower() in ("true", "yes", "false", "no"):
        return raw.strip().lower() in ("true", "yes")
    raise ValueError(f"{name} must be true or false, not {raw!r}")


def _as_score(raw: Any, name: str) -> float:
    if isinstance(raw, bool) or raw is None:
        raise ValueError(f"{name} must be a number from 0 to 1")
    try:
        score = float(raw)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number from 0 to 1, not {raw!r}") from None
    if math.isnan(score) or not 0.0 <= score <= 1.0:
        raise ValueError(f"{name} is {raw!r}; scores run from 0 to 1")
    return score
