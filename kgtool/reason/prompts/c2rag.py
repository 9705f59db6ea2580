"""C2RAG's prompts (constraint planner, textual recovery reader, answer) and their validators.

As in kgtool.reason.prompts.care: a fixed system prompt per role whose first
line is `ROLE: <role>`, the task data as one JSON object in the user message,
and a validator that turns the decoded JSON into the loop's value or raises
ValueError with a short problem the model can fix on a re-ask.

The knowledge the loop reads may be edited and contradict the real world, so
the reader prompts tell the model to answer from the given evidence only.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from kgtool.core.types import PassageHit
from kgtool.reason.agents.c2rag_base import (
    Block,
    Constraint,
    ConstraintPlan,
    is_variable,
)
from kgtool.reason.prompts import spec as sch
from kgtool.reason.prompts.spec import PromptSpec, mentions

MAX_CONSTRAINTS = 8
MAX_ANSWER_CHARS = 100
MAX_ANSWER_WORDS = 12  # a name or a value; a sentence is not an answer


def _data(payload: dict) -> str:
    return json.dumps(payload, ensure_ascii=False, indent=2)


# ---------------------------------------------------------------------- planner

PLANNER_SYSTEM = """ROLE: c2rag_planner
You turn a multi-hop question into an ordered list of atomic constraints that a knowledge graph can check one at a time.

A constraint is a triple: head, relation, tail.
- Head and tail are either an entity the question names (copy it exactly as the question writes it) or a placeholder for an entity the question does not name.
- A placeholder starts with "?" and its name says what kind of thing it stands for: ?person, ?country, ?city, ?year, ?film. Number them when two unknowns share a kind (?person1, ?person2).
- Use the same placeholder wherever the same unknown entity appears, so constraints chain through it.
- The relation is a short phrase as a knowledge graph would name it ("spouse", "country of citizenship", "located in", "director").
- Each constraint holds exactly one relation and at least one placeholder. Order the constraints so that the first ones start from entities the question names.
For every constraint give {m} variants: other short phrasings of the same relation, the relation itself first.
Name the placeholder whose value answers the question in "answer".
Only restructure the question: do not answer it and do not add facts you know.

Reply with only a JSON object and no other text:
{{"constraints": [{{"head": "...", "relation": "...", "tail": "...", "variants": ["...", "..."]}}], "answer": "?..."}}

Example
Question: Which country was the director of Jaws born in?
{{"constraints": [{{"head": "Jaws", "relation": "director", "tail": "?person", "variants": ["director", "directed by", "film director"]}}, {{"head": "?person", "relation": "country of birth", "tail": "?country", "variants": ["country of birth", "born in", "place of birth"]}}], "answer": "?country"}}
"""


def planner_prompt(question: str, variants: int) -> PromptSpec[ConstraintPlan]:
    constraint = sch.obj(head=sch.name(), relation=sch.name(80), tail=sch.name(),
                         variants=sch.array(sch.name(80), max(1, variants)))
    schema = sch.obj(constraints=sch.array(constraint, sch.PLAN_HOPS, 1), answer=sch.name(40))
    return PromptSpec("c2rag_planner", PLANNER_SYSTEM.replace("{m}", str(variants)).replace("{{", "{").replace("}}", "}"),
                      _data({"question": question}), plan_validator(variants, question), schema)


def _type_of(var: str) -> str:
    return re.sub(r"[\d_]+$", "", var.lstrip("?")) or "entity"


def plan_validator(variants: int, question: str | None = None) -> Callable[[Any], ConstraintPlan]:
    """The constraint plan; given the question, its named entities must be ones the question names."""

    def validate(value: Any) -> ConstraintPlan:
        if not isinstance(value, dict) or not isinstance(value.get("constraints"), list):
            raise ValueError('expected an object with a "constraints" list and an "answer" placeholder')
        items = value["constraints"]
        if not items:
            raise ValueError('"constraints" is empty; give at least one constraint')
        if len(items) > MAX_CONSTRAINTS:
            raise ValueError(f"{len(items)} constraints is too many; give at most {MAX_CONSTRAINTS}")
        constraints = []
        for i, item in enumerate(items, start=1):
            if not isinstance(item, dict):
                raise ValueError(f"constraint {i} must be an object with head, relation, tail, variants")
            parts = {}
            for key in ("head", "relation", "tail"):
                text = item.get(key)
                if not isinstance(text, str) or not text.strip():
                    raise ValueError(f'constraint {i} needs a non-empty string "{key}"')
                parts[key] = text.strip()
            if is_variable(parts["relation"]):
                raise ValueError(f"constraint {i}: the relation must be a phrase, not a placeholder")
            if not (is_variable(parts["head"]) or is_variable(parts["tail"])):
                raise ValueError(f"constraint {i} has no placeholder; one end must be an unknown like ?person")
            raw = item.get("variants", [])
            if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
                raise ValueError(f'constraint {i}: "variants" must be a list of strings')
            found = list(dict.fromkeys(v.strip() for v in [parts["relation"], *raw] if v.strip()))[: max(1, variants)]
            types = {t: _type_of(t) for t in (parts["head"], parts["tail"]) if is_variable(t)}
            constraints.append(Constraint(i - 1, parts["head"], parts["relation"], parts["tail"], found, types))
        if not any(not is_variable(c.head) or not is_variable(c.tail) for c in constraints):
            raise ValueError("no constraint names an entity of the question; the first must start from one")
        if question is not None:
            named = [t for c in constraints for t in (c.head, c.tail) if not is_variable(t)]
            if not any(mentions(question, t) for t in named):
                raise ValueError(f"none of the entities {', '.join(named)} is named in the question; "
                                 "start from an entity the question names, written as in the question")
        answer = value.get("answer")
        used = {v for c in constraints for v in c.variables}
        if not isinstance(answer, str) or answer.strip() not in used:
            raise ValueError(f'"answer" must be one of the placeholders used: {", ".join(sorted(used))}')
        return ConstraintPlan(constraints, answer.strip())

    return validate


# ---------------------------------------------------------------- recovery

RECOVERY_SYSTEM = """ROLE: c2rag_recovery
The knowledge graph could not settle one constraint of a multi-hop question, so you read passages instead.
You get the question, the constraint as a triple with the unknown written as a placeholder (?...), the entities already known, and a few numbered passages.
Find the entity or value that the placeholder stands for, as the passages state it. Use only the passages: the knowledge may have been edited and can differ from what you remember. If no passage states it, answer null.
Give the answer as a short name or value copied from the passage, not a sentence.

Reply with only a JSON object and no other text:
{"answer": "<the value, or null>", "passage": "<the id of the passage that states it, or null>"}
"""


def _passage_ids(n: int) -> list[str]:
    return [f"p{i}" for i in range(1, n + 1)]


def recovery_prompt(question: str, constraint_text: str, known: Sequence[str],
                    passages: Sequence[PassageHit]) -> PromptSpec[tuple[str | None, str | None]]:
    ids = _passage_ids(len(passages))
    rows = [{"id": pid, "title": p.title, "text": p.text} for pid, p in zip(ids, passages)]
    user = _data({"question": question, "constraint": constraint_text, "known": list(known), "passages": rows})
    schema = sch.obj(answer=sch.nullable(sch.name(MAX_ANSWER_CHARS)), passage=sch.nullable(sch.one_of(ids)))
    return PromptSpec("c2rag_recovery", RECOVERY_SYSTEM, user,
                      recovery_validator({pid: p.passage_id for pid, p in zip(ids, passages)}), schema)


def _short_answer(value: Any, what: str) -> str | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "null", "none", "unknown")):
        return None
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise ValueError(f'"{what}" must be a string or null')
    text = str(value).strip()
    if len(text) > MAX_ANSWER_CHARS or len(text.split()) > MAX_ANSWER_WORDS:
        raise ValueError(f'"{what}" is a sentence ({len(text.split())} words); give only the name or value')
    return text


def recovery_validator(id_map: dict[str, str]) -> Callable[[Any], tuple[str | None, str | None]]:
    def validate(value: Any) -> tuple[str | None, str | None]:
        if not isinstance(value, dict) or "answer" not in value:
            raise ValueError('expected an object with "answer" and "passage"')
        answer = _short_answer(value.get("answer"), "answer")
        if answer is None:
            return None, None
        pid = value.get("passage")
        pid = f"p{pid}" if isinstance(pid, int) else (pid.strip() if isinstance(pid, str) else pid)
        if pid not in id_map:
            raise ValueError(f'"passage" must name the passage that states the answer: one of {", ".join(id_map)}')
        return answer, id_map[pid]

    return validate


# ------------------------------------------------------------------- answer

ANSWER_SYSTEM = """ROLE: c2rag_answer
Answer a multi-hop question from evidence grouped by constraint. Each block holds one constraint of the question as a triple, how it was settled (resolved: by the knowledge graph; recovered: from text; unresolved: the graph was ambiguous and text did not settle it), the value bound to its unknown, and the evidence texts.
Follow the constraints in order and answer with the value the last one leads to. Trust the evidence over what you remember: the knowledge may have been edited. If the evidence cannot answer the question, answer null.
Give a short answer (a name, a value, yes or no), not a sentence.

Reply with only a JSON object and no other text:
{"answer": "<the answer, or null>"}
"""


def answer_prompt(question: str, blocks: Sequence[Block]) -> PromptSpec[str | None]:
    rows = [{"constraint": b.constraint, "state": b.state, "bound": b.binding, "evidence": b.evidence[:5]}
            for b in blocks]
    return PromptSpec("c2rag_answer", ANSWER_SYSTEM, _data({"question": question, "blocks": rows}), validate_answer,
                      sch.obj(answer=sch.nullable(sch.name(MAX_ANSWER_CHARS))))


def validate_answer(value: Any) -> str | None:
    if not isinstance(value, dict) or "answer" not in value:
        raise ValueError('expected an object with "answer"')
    return _short_answer(value["answer"], "answer")
