"""Reading a model's reply: the JSON in it, its schema, and content copied from the prompt.

A reply is read as itself, never mined: the whole reply (or a fenced block)
when it parses, else its FIRST JSON object. Taking the longest JSON anywhere
let a model pass validation with an example it copied from the prompt.

Two checks no validator of a role can make alone, because they compare the
reply with the prompt: template text (`"<a few words>"`) and whole phrases
copied from the instructions' examples that the task data does not contain.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterator

from kgtool.errors import require

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_TEMPLATE = re.compile(r"<[^<>{}\n]{2,80}>")
# a copied phrase: long enough and with a space, so ids, enum values and one-word names do not count
_MIN_COPY_CHARS = 16


class UnusableReply(ValueError):
    """A reply that cannot be used as it is; the message tells the model what to fix."""


def parse_reply(text: str) -> Any:
    """The JSON value of a reply: the reply itself, a fenced block, or the first object in it."""
    text = (text or "").strip()
    if not text:
        raise UnusableReply("the reply was empty")
    for candidate in [text, *_FENCE.findall(text)]:
        try:
            return json.loads(candidate.strip())
        except json.JSONDecodeError:
            pass
    start = text.find("{")
    if start >= 0:
        try:
            value, _end = json.JSONDecoder().raw_decode(text, start)
            return value
        except json.JSONDecodeError:
            pass
    raise UnusableReply("the reply holds no JSON object; reply with only the JSON object asked for")


def check_schema(value: Any, schema: dict | None) -> Any:
    """`value` checked against `schema` as a tolerant reader: the reply, or UnusableReply naming the first
    place where it breaks the schema.

    A server that enforces the schema can only send a reply that fits it whole. A reply from one that
    does not is held to the types and numeric ranges the schema gives its values; keys it leaves out or
    adds, text lengths, list sizes and allowed values (ids, type names a validator reads with aliases) are
    left to the role's validator, which names the problem more exactly. A bare list where the schema
    wraps one list in an object is taken as that list.
    """
    if not schema:
        return value
    jsonschema = require("jsonschema", "llm", "checking LLM replies against their schema")
    props = schema.get("properties") or {}
    if isinstance(value, list) and len(props) == 1 and next(iter(props.values())).get("type") == "array":
        value = {next(iter(props)): value}
    validator = jsonschema.Draft202012Validator(_tolerant(schema))
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is not None:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
        raise UnusableReply(f"{where or 'the reply'}: {_schema_problem(error)}")
    return value


_LEFT_TO_VALIDATORS = {"required", "additionalProperties", "maxLength", "minLength", "maxItems", "minItems", "enum"}


def _tolerant(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _tolerant(v) for k, v in schema.items() if k not in _LEFT_TO_VALIDATORS}
    if isinstance(schema, list):
        return [_tolerant(v) for v in schema]
    return schema


def _schema_problem(error) -> str:
    rule, bound = error.validator, error.validator_value
    if rule == "type":
        kinds = bound if isinstance(bound, list) else [bound]
        return f"must be {' or '.join(kinds)}, not {type(error.instance).__name__}"
    if rule in ("maxItems", "minItems"):
        return f"must hold {'at most' if rule == 'maxItems' else 'at least'} {bound} item(s)"
    if rule in ("maxLength", "minLength"):
        return f"must be {'at most' if rule == 'maxLength' else 'at least'} {bound} character(s) long"
    if rule == "enum":
        return f"{_short(json.dumps(error.instance))} is not one of {', '.join(map(str, bound))}"
    if rule == "anyOf":
        return f"{_short(json.dumps(error.instance))} is not allowed here"
    return _short(error.message)


def check_copied(value: Any, system: str, user: str, allowed: set[str] = frozenset()) -> None:
    """Reject template text and whole phrases of the instructions that the task data does not hold."""
    for text in _strings(value):
        if text in allowed:
            continue
        template = _TEMPLATE.search(text)
        if template:
            raise UnusableReply(f"{template.group(0)!r} is template text from the instructions; "
                                "write the real value (or null)")
        phrase = text.strip()
        if len(phrase) >= _MIN_COPY_CHARS and " " in phrase and phrase in system and _foreign_words(phrase, user):
            raise UnusableReply(f"{_short(phrase)!r} is copied from the instructions' example, "
                                "not taken from this task's data; answer for this task")


def enum_values(schema: Any) -> set[str]:
    """Every enum value a schema allows anywhere (ids, type names): never "copied from the prompt"."""
    found: set[str] = set()
    if isinstance(schema, dict):
        for value in schema.get("enum", []):
            found.add(str(value))
        for child in schema.values():
            found |= enum_values(child)
    elif isinstance(schema, list):
        for child in schema:
            found |= enum_values(child)
    return found


def _foreign_words(phrase: str, user: str) -> bool:
    """Whether the phrase holds a word the task data does not (placeholders like [ENT] aside):
    a generic phrasing that happens to match an example is fine, an example's entity is not."""
    asked = set(re.findall(r"\w+", user.casefold()))
    words = re.findall(r"\w+", re.sub(r"\[[^\]]*\]", " ", phrase.casefold()))
    return any(len(w) >= 3 and w not in asked for w in words)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ------------------------------------------------------------------ length budget

_CHARS_PER_TOKEN = 3.0  # a conservative figure: names and ids tokenise worse than prose
_DEFAULT_STRING = 200
_DEFAULT_ITEMS = 10


def reply_token_budget(schema: dict | None, *, floor: int = 48, ceiling: int = 2048) -> int:
    """The most tokens a reply of this schema can need (JSON punctuation included), bounded."""
    if not schema:
        return ceiling
    return max(floor, min(ceiling, int(_tokens(schema)) + 8))


def _tokens(schema: Any) -> float:
    if not isinstance(schema, dict):
        return 4
    if "anyOf" in schema:
        return max(_tokens(s) for s in schema["anyOf"])
    if "enum" in schema:
        return max(len(str(v)) for v in schema["enum"]) / _CHARS_PER_TOKEN + 3
    kind = schema.get("type")
    if kind == "string":
        return schema.get("maxLength", _DEFAULT_STRING) / _CHARS_PER_TOKEN + 3
    if kind == "array":
        return 2 + schema.get("maxItems", _DEFAULT_ITEMS) * (_tokens(schema.get("items", {})) + 1)
    if kind == "object":
        props = schema.get("properties", {})
        return 2 + sum(len(k) / _CHARS_PER_TOKEN + 3 + _tokens(v) for k, v in props.items())
    return 4  # number, integer, boolean, null


def estimate_tokens(text: str) -> int:
    return int(len(text) / _CHARS_PER_TOKEN) + 1


def fit_user_message(user: str, budget_tokens: int, *, shortest: int = 80) -> tuple[str, bool]:
    """The user message (task data as JSON) shortened to about `budget_tokens`: the longest
    texts are cut first, down to `shortest` characters; ids, names and list lengths stay.

    Returns the message and whether anything was cut. A message that is not JSON is cut at the end.
    """
    if estimate_tokens(user) <= budget_tokens:
        return user, False
    try:
        payload = json.loads(user)
    except json.JSONDecodeError:
        return user[: int(budget_tokens * _CHARS_PER_TOKEN)], True
    target = int(budget_tokens * _CHARS_PER_TOKEN)
    for limit in (1200, 800, 500, 300, 200, 120, shortest):
        payload = _cut_strings(payload, limit)
        fitted = json.dumps(payload, ensure_ascii=False, indent=1)
        if len(fitted) <= target:
            return fitted, True
    return fitted, True


def _cut_strings(value: Any, limit: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= limit else value[: limit - 3].rstrip() + "..."
    if isinstance(value, dict):
        return {k: _cut_strings(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut_strings(v, limit) for v in value]
    return value
