"""VoG's agent prompts (plan, relation and entity choice, verify, revise) and their validators.

Same conventions as kgtool.reason.prompts.care: a fixed system prompt per role
whose first line is `ROLE: <role>`, the task data as one JSON object in the
user message, and a validator that turns the model's JSON into the loop's
value or raises ValueError with a short problem the model can fix on a re-ask.
The facts may be edited and contradict the world, so every prompt tells the
model to trust the given facts over its memory.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from kgtool.core.types import PLACEHOLDER, CandidateFact
from kgtool.reason.agents.vog_base import (
    Check,
    PlanStep,
    RelationOption,
    RevisionContext,
    VogPlan,
)
from kgtool.reason.prompts import spec as sch
from kgtool.reason.prompts.spec import PromptSpec, require_topic_in
from kgtool.reason.taxonomy import VogError

ROLES = ("vog_planner", "vog_relations", "vog_entity", "vog_verifier", "vog_reviser")
ERROR_TYPES = tuple(e.value for e in VogError)
MAX_STEPS = 10
_PLACEHOLDER_VARIANTS = re.compile(r"\[\s*ent(?:ity)?\s*\]", re.IGNORECASE)


def _data(payload: dict) -> str:
    return json.dumps(payload, ensure_ascii=False, indent=2)


PLAN_SCHEMA = sch.obj(
    topic=sch.name(),
    steps=sch.array(sch.obj(thought=sch.text(100), action=sch.text(sch.QUESTION_CHARS),
                            relation=sch.nullable(sch.name(80)), expected=sch.nullable(sch.name())), sch.PLAN_HOPS, 1),
    answer=sch.nullable(sch.name()))
CHECK_SCHEMA = sch.obj(consistent=sch.boolean(), confidence=sch.number(),
                       error_type=sch.nullable(sch.one_of(ERROR_TYPES)), reason=sch.text(),
                       observation=sch.nullable(sch.name()))


_PLAN_FORMAT = f"""Reply with only a JSON object and no other text:
{{"topic": "<the entity the question starts from, as written in the question>",
  "steps": [{{"thought": "<why this step>", "action": "<a sub-question asking one relation of one entity>",
             "relation": "<the relation the step follows, in a few words>", "expected": "<the entity you expect, or null>"}}],
  "answer": "<the answer you expect, or null>"}}
The first action names the topic entity; every later action refers to the previous step's answer as {PLACEHOLDER}."""

PLANNER_SYSTEM = f"""ROLE: vog_planner
You plan how to answer a multi-hop question over a knowledge graph before anything is looked up. Write the whole plan: one step per hop, in the order they have to be taken, each step following one relation from the entity the previous step reached.

For every step give a short thought, the action (a sub-question), the relation it follows and the entity you expect it to reach. Your expectations are only guesses: the graph will be checked step by step and may have been edited, so it can disagree with what you remember. Write null when you cannot guess.

{_PLAN_FORMAT}

Example
Question: What is the capital of the country where the author of Don Quixote was born?
{{"topic": "Don Quixote", "steps": [
  {{"thought": "First find who wrote the book.", "action": "Who is the author of Don Quixote?", "relation": "author", "expected": "Miguel de Cervantes"}},
  {{"thought": "Then where that person was born.", "action": "In which country was {PLACEHOLDER} born?", "relation": "country of birth", "expected": "Spain"}},
  {{"thought": "Then the capital of that country.", "action": "What is the capital of {PLACEHOLDER}?", "relation": "capital", "expected": "Madrid"}}],
 "answer": "Madrid"}}
"""

RELATIONS_SYSTEM = """ROLE: vog_relations
You help walk a knowledge graph. Given a step of a reasoning plan, the entity the step starts from and the relations that entity has (each with an id), choose the relations worth following to answer the step's sub-question, best first. A relation marked "incoming" points at the entity from another one.

Reply with only a JSON object and no other text:
{"relations": ["<relation id>", "..."]}
Choose at least one relation, and only ids from the list."""

ENTITY_SYSTEM = """ROLE: vog_entity
You help walk a knowledge graph. Given a step of a reasoning plan and candidate facts (each with an id, a head, a relation, a tail and an evidence sentence), choose the fact that answers the step's sub-question. The facts may have been edited and differ from what you remember: trust them over your memory.

Reply with only a JSON object and no other text:
{"choice": "<fact id>"}
or {"choice": null} when no fact answers the sub-question."""

VERIFIER_SYSTEM = f"""ROLE: vog_verifier
You check one step of a reasoning plan against what the knowledge graph returned for it. The graph may have been edited: it is the authority, not your memory.

The step is consistent when the chosen fact answers the step's sub-question, follows the relation the step needs for the question, and its evidence states it. A different entity than the plan expected is not an error by itself when the fact is right: then say what the observation really is.

When the step is not consistent, name the error type, one of:
- "hallucinated_fact": the plan predicted an observation the graph does not support;
- "incomplete_evidence": the graph returned no fact, or none of the relation the step needs;
- "entity_disambiguation": the step reached another entity than the one meant;
- "intent_drift": the chosen relation does not serve the question while another retrieved one does.

Reply with only a JSON object and no other text:
{{"consistent": true or false, "confidence": <0 to 1, how sure you are the step is consistent with the graph>,
  "error_type": "<one of {', '.join(ERROR_TYPES)}, or null when consistent>", "reason": "<one sentence>",
  "observation": "<the entity the graph gives for this step, or null>"}}"""

REVISER_SYSTEM = f"""ROLE: vog_reviser
A step of your reasoning plan failed its check against the knowledge graph. Revise the plan using only the context you are given:
- "local": the facts retrieved for the failed step;
- "lookahead": those facts and the relations reachable one hop further from each entity they lead to;
- "global": the whole plan and every fact retrieved so far.

Keep the steps before the failed one unless the context shows they are wrong. Change the failed step (its relation, its expected entity, or split or merge steps) so that it can be answered from the graph, and update what the later steps expect. The graph may have been edited: trust its facts over your memory.

{_PLAN_FORMAT}"""


# ------------------------------------------------------------------- planner / reviser


def planner_prompt(question: str) -> PromptSpec[VogPlan]:
    return PromptSpec("vog_planner", PLANNER_SYSTEM, _data({"question": question}), plan_validator(question),
                      PLAN_SCHEMA)


def plan_validator(question: str) -> Callable[[Any], VogPlan]:
    """validate_plan, and the topic must be an entity this question names (not an example's)."""

    def validate(value: Any) -> VogPlan:
        plan = validate_plan(value)
        require_topic_in(question, plan.topic)
        return plan

    return validate


def reviser_prompt(ctx: RevisionContext) -> PromptSpec[VogPlan]:
    obs = ctx.observation
    payload: dict[str, Any] = {
        "question": ctx.question, "context": ctx.arm, "plan": ctx.plan.as_dict(), "failed_step": ctx.index + 1,
        "check": {"error_type": ctx.check.error_type, "reason": ctx.check.reason,
                  "observation": ctx.check.revised_observation},
        "step_starts_from": obs.entity,
        "retrieved": [{"head": c.head, "relation": c.relation, "tail": c.tail, "evidence": c.evidence}
                      for c in obs.candidates if c.fact_id not in ctx.rejected][:10],
        "rejected": [{"head": c.head, "relation": c.relation, "tail": c.tail}
                     for c in obs.candidates if c.fact_id in ctx.rejected],
    }
    if ctx.arm == "lookahead":
        names = {obs.end(c)[0]: obs.end(c)[1] for c in obs.candidates}
        payload["next_relations"] = {names.get(eid, eid): sorted({label for _k, label, _d in rels})
                                     for eid, rels in ctx.lookahead.items() if rels}
    if ctx.arm == "global":
        payload["all_feedback"] = [{"step": r["hop"], "head": r["head"], "relation": r["relation"], "tail": r["tail"],
                                    "chosen": r["chosen"], "step_verified": r["valid"]} for r in ctx.feedback]
    else:
        # local and lookahead see the failed step and what it depends on, not the whole plan
        payload["plan"]["steps"] = payload["plan"]["steps"][:ctx.index + 2]
    return PromptSpec("vog_reviser", REVISER_SYSTEM, _data(payload), plan_validator(ctx.question), PLAN_SCHEMA)


def validate_plan(value: Any) -> VogPlan:
    """A VogPlan from the planner's or reviser's JSON."""
    if not isinstance(value, dict):
        raise ValueError('the reply must be a JSON object with "topic" and "steps"')
    items = value.get("steps")
    if not isinstance(items, list) or not items:
        raise ValueError('"steps" must be a non-empty list of step objects')
    if len(items) > MAX_STEPS:
        raise ValueError(f"{len(items)} steps is too many; use one per hop")
    topic = value.get("topic")
    if topic is not None and not isinstance(topic, str):
        raise ValueError('"topic" must be a string')
    steps = []
    for i, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise ValueError(f"step {i} must be an object with thought, action, relation and expected")
        action = item.get("action")
        if not isinstance(action, str) or not action.strip():
            raise ValueError(f'step {i} needs an "action": a sub-question')
        action = _PLACEHOLDER_VARIANTS.sub(PLACEHOLDER, action.strip())
        if i > 1 and PLACEHOLDER not in action:
            raise ValueError(f"the action of step {i} must refer to the previous step's answer as {PLACEHOLDER}")
        if i == 1 and PLACEHOLDER in action:
            raise ValueError(f"the first action must name the topic entity instead of {PLACEHOLDER}")
        steps.append(PlanStep(thought=_text(item.get("thought")) or "", action=action,
                              relation=_text(item.get("relation")), expected=_text(item.get("expected"))))
    return VogPlan(steps, topic=(topic or "").strip() or None, answer=_text(value.get("answer")))


def _text(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "null", "none", "unknown")):
        return None
    if not isinstance(value, (str, int, float)):
        raise ValueError(f"expected a string or null, got {json.dumps(value)[:60]}")
    return str(value).strip()


# ------------------------------------------------------------------- retrieve agent


def relations_prompt(question: str, step: PlanStep, query: str, entity: str,
                     options: Sequence[RelationOption]) -> PromptSpec[list[int]]:
    payload = {"question": question, "sub_question": query, "planned_relation": step.relation, "entity": entity,
               "relations": [{"id": f"r{k}", "relation": o.label,
                              **({"direction": "incoming"} if o.direction == "in" else {})}
                             for k, o in enumerate(options, start=1)]}
    ids = [f"r{k}" for k in range(1, len(options) + 1)]
    return PromptSpec("vog_relations", RELATIONS_SYSTEM, _data(payload), relations_validator(len(options)),
                      sch.obj(relations=sch.array(sch.one_of(ids), len(ids), 1)))


def relations_validator(n: int) -> Callable[[Any], list[int]]:
    """Indexes (0-based, best first, no repeats) of the chosen relations."""

    def validate(value: Any) -> list[int]:
        items = value.get("relations") if isinstance(value, dict) else value
        if not isinstance(items, list) or not items:
            raise ValueError('"relations" must be a non-empty list of relation ids such as "r1"')
        out: list[int] = []
        for item in items:
            k = _index(item, "r", n)
            if k not in out:
                out.append(k)
        return out

    return validate


def entity_prompt(question: str, step: PlanStep, query: str, entity: str,
                  candidates: Sequence[CandidateFact]) -> PromptSpec[int | None]:
    payload = {"question": question, "sub_question": query, "expected": step.expected, "entity": entity,
               "facts": [{"id": f"c{k}", "head": c.head, "relation": c.relation, "tail": c.tail,
                          "evidence": c.evidence} for k, c in enumerate(candidates, start=1)]}
    ids = [f"c{k}" for k in range(1, len(candidates) + 1)]
    return PromptSpec("vog_entity", ENTITY_SYSTEM, _data(payload), entity_validator(len(candidates)),
                      sch.obj(choice=sch.nullable(sch.one_of(ids))))


def entity_validator(n: int) -> Callable[[Any], int | None]:
    def validate(value: Any) -> int | None:
        if not isinstance(value, dict) or "choice" not in value:
            raise ValueError('reply with {"choice": "<fact id>"} or {"choice": null}')
        return None if value["choice"] is None else _index(value["choice"], "c", n)

    return validate


def _index(item: Any, prefix: str, n: int) -> int:
    text = str(item).strip().lower()
    text = text.removeprefix(prefix)
    if not text.isdigit() or not 1 <= int(text) <= n:
        raise ValueError(f"{item!r} is not one of the ids {prefix}1..{prefix}{n}")
    return int(text) - 1


# ------------------------------------------------------------------- verify agent


def verifier_prompt(question: str, plan: VogPlan, index: int, step_fact: dict | None,
                    others: Sequence[dict]) -> PromptSpec[Check]:
    step = plan.steps[index]
    payload = {"question": question, "plan": [s.action for s in plan.steps], "step": index + 1,
               "thought": step.thought, "sub_question": step.action, "planned_relation": step.relation,
               "expected": step.expected, "chosen_fact": step_fact, "other_retrieved_facts": list(others)}
    return PromptSpec("vog_verifier", VERIFIER_SYSTEM, _data(payload), validate_check, CHECK_SCHEMA)


def validate_check(value: Any) -> Check:
    if not isinstance(value, dict):
        raise ValueError('the reply must be a JSON object with "consistent" and "confidence"')
    consistent = value.get("consistent")
    if not isinstance(consistent, bool):
        raise ValueError('"consistent" must be true or false')
    try:
        confidence = float(value.get("confidence"))
    except (TypeError, ValueError):
        raise ValueError('"confidence" must be a number from 0 to 1') from None
    if not 0.0 <= confidence <= 1.0:
        raise ValueError('"confidence" must be a number from 0 to 1')
    error_type = value.get("error_type")
    if consistent:
        error_type = None
    elif error_type not in ERROR_TYPES:
        raise ValueError(f'"error_type" must be one of {", ".join(ERROR_TYPES)} when the step is not consistent')
    reason = value.get("reason") or ""
    if not isinstance(reason, str):
        raise ValueError('"reason" must be a sentence')
    return Check(consistent, confidence, error_type, reason.strip(), revised_observation=_text(value.get("observation")),
                 checks={"llm_confidence": confidence})


__all__ = [
    "ROLES",
    "entity_prompt",
    "planner_prompt",
    "relations_prompt",
    "reviser_prompt",
    "validate_check",
    "validate_plan",
    "verifier_prompt",
]
