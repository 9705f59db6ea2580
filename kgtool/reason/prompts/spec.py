"""What an LLM role asks: the prompt, the reply's JSON schema and the reply's validator, in one value.

Both sides import this module: the prompt modules build `PromptSpec`s, the
agents hand them to the LLM client. The reply schema is one definition with
two uses, as in neo4j-graphrag: the client sends it as the request's
`response_format` (so a server with structured output can only produce a
reply of that shape) and checks every reply against it before the role's
validator reads the content. Lists are wrapped in objects (structured-output
servers want an object at the top) and every string and list is bounded
(`maxLength`, `maxItems`), so the client can set `max_tokens` from the schema
and a small model cannot ramble until the timeout.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Generic, Iterable, TypeVar

T = TypeVar("T")

_ROLE_LINE = re.compile(r"^ROLE:\s*(\w+)")

# bounds shared by the prompts: an entity name, a sub-question, a sentence of reasoning
NAME_CHARS = 100
QUESTION_CHARS = 160
SENTENCE_CHARS = 160
# a plan's hops as the schema bounds them (validators accept up to their own maximum)
PLAN_HOPS = 5


@dataclass(frozen=True)
class PromptSpec(Generic[T]):
    """One request of one role: system and user messages, the reply schema and its validator.

    `schema` is a JSON schema (an object at the top); `validate` turns the decoded,
    schema-checked reply into the loop's value or raises ValueError naming the problem.
    """

    role: str
    system: str
    user: str
    validate: Callable[[Any], T]
    schema: dict | None = None

    @property
    def schema_name(self) -> str:
        return self.role or "reply"


def role_of(system_prompt: str) -> str | None:
    """The role named on the first line of a system prompt (`ROLE: critic`)."""
    match = _ROLE_LINE.match(system_prompt or "")
    return match.group(1) if match else None


def data(payload: dict) -> str:
    """The task data of a user message: one JSON object."""
    return json.dumps(payload, ensure_ascii=False, indent=2)


# ------------------------------------------------------------------ schema pieces


def text(max_length: int = SENTENCE_CHARS) -> dict:
    return {"type": "string", "maxLength": max_length}


def name(max_length: int = NAME_CHARS) -> dict:
    """A non-empty short string (an entity, a relation, an id)."""
    return {"type": "string", "minLength": 1, "maxLength": max_length}


def nullable(schema: dict) -> dict:
    return {"anyOf": [schema, {"type": "null"}]}


def one_of(values: Iterable[str]) -> dict:
    return {"type": "string", "enum": list(dict.fromkeys(values))}


def boolean() -> dict:
    return {"type": "boolean"}


def number(low: float = 0.0, high: float = 1.0) -> dict:
    return {"type": "number", "minimum": low, "maximum": high}


def integer(low: int, high: int) -> dict:
    return {"type": "integer", "minimum": low, "maximum": high}


def array(items: dict, max_items: int, min_items: int = 0) -> dict:
    out = {"type": "array", "items": items, "maxItems": max(max_items, min_items)}
    if min_items:
        out["minItems"] = min_items
    return out


def obj(**properties: dict) -> dict:
    """An object with exactly these properties, all required (a null is how a reply says "none")."""
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


# ------------------------------------------------------------------ content checks


def _words(value: str) -> list[str]:
    return re.findall(r"\w+", value.casefold())


def mentions(question: str, entity: str, share: float = 0.6) -> bool:
    """Whether the question names `entity`: at least `share` of its words occur in the question."""
    words = _words(entity)
    if not words:
        return False
    asked = set(_words(question))
    return sum(w in asked for w in words) / len(words) >= share


def require_topic_in(question: str, topic: Any) -> None:
    """A plan's topic must be an entity the question names, not one from the prompt's examples."""
    if isinstance(topic, str) and topic.strip() and not mentions(question, topic):
        raise ValueError(f'"topic" is {topic!r}, which the question does not name; '
                         "the topic is the entity the question starts from, written as in the question")
