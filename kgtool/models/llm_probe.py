"""What an OpenAI-compatible endpoint supports: output forms, context length, speed.

The client learns the output form from the endpoint's answers (a refused
`response_format` steps down to the next form) and remembers it per endpoint
and model for the process. `capabilities` probes explicitly, for
`kgtool llm check`: each form is asked for something the instructions
contradict, so a server that enforces the form is told apart from one that
ignores it (a flat `{"type": "json_schema", "schema": ...}` is silently
ignored by llama.cpp, for example).
"""
from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

FORMS = ("json_schema", "json_object", "text")

_known: dict[tuple[str, str], str] = {}
_contexts: dict[str, int] = {}
_lock = threading.Lock()

_FORMAT_WORDS = re.compile(r"response_format|json_schema|json_object|schema|grammar|structured", re.IGNORECASE)


def known_form(endpoint: str, model: str) -> str | None:
    with _lock:
        return _known.get((endpoint, model))


def remember_form(endpoint: str, model: str, form: str) -> None:
    with _lock:
        _known[(endpoint, model)] = form


def forget() -> None:
    """Forget what was learnt (tests start every endpoint afresh)."""
    with _lock:
        _known.clear()
        _contexts.clear()


def simpler(form: str) -> str:
    return FORMS[min(FORMS.index(form) + 1, len(FORMS) - 1)]


def mentions_format(detail: str) -> bool:
    """Whether an error message is about the request's output format."""
    return bool(_FORMAT_WORDS.search(detail or ""))


def _root(base_url: str) -> str:
    return re.sub(r"/v1/?$", "", base_url.rstrip("/"))


def _get_json(url: str, timeout: float) -> dict | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (a configured endpoint)
            return json.loads(response.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, ValueError):
        return None


def context_length(base_url: str | None, timeout: float = 5.0, *, fresh: bool = False) -> int:
    """The served context in tokens (llama.cpp's /props, else a model's n_ctx_train), 0 when not told.

    Asked once per endpoint and process unless `fresh`."""
    if not base_url:
        return 0
    with _lock:
        if base_url in _contexts and not fresh:
            return _contexts[base_url]
    found = 0
    props = _get_json(_root(base_url) + "/props", min(timeout, 5.0))
    if isinstance(props, dict):
        settings = props.get("default_generation_settings") or {}
        found = int(settings.get("n_ctx") or props.get("n_ctx") or 0)
    if not found:
        models = _get_json(base_url.rstrip("/") + "/models", min(timeout, 5.0))
        for item in (models or {}).get("data", []) if isinstance(models, dict) else []:
            meta = item.get("meta") or {}
            found = int(meta.get("n_ctx") or meta.get("n_ctx_train") or 0)
            if found:
                break
    with _lock:
        _contexts[base_url] = found
    return found


def list_models(base_url: str, timeout: float = 5.0) -> list[str]:
    models = _get_json(base_url.rstrip("/") + "/models", timeout)
    if not isinstance(models, dict):
        return []
    return [str(item.get("id")) for item in models.get("data", []) if isinstance(item, dict)]


# ------------------------------------------------------------------ explicit probes

_PROBE_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
                 "additionalProperties": False}
# each probe asks for something its form forbids: only a server that enforces the form complies with the form
_PROBES = {
    "json_schema": ('Reply with exactly this JSON and nothing else: {"answer": "yes"}',
                    {"type": "json_schema", "json_schema": {"name": "probe", "schema": _PROBE_SCHEMA}}),
    "json_object": ("Reply with the single word hello and nothing else.", {"type": "json_object"}),
}


@dataclass
class Capabilities:
    base_url: str
    model: str
    models: list[str] = field(default_factory=list)
    forms: dict[str, str] = field(default_factory=dict)  # form -> enforced | ignored | refused (...)
    context: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    error: str | None = None

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / self.seconds if self.seconds else 0.0

    @property
    def best_form(self) -> str:
        return next((f for f in FORMS[:2] if self.forms.get(f) == "enforced"), "text")


def capabilities(base_url: str, model: str, api_key: str | None = None, timeout: float = 60.0) -> Capabilities:
    """Probe an endpoint: its models, which output forms it enforces, its context, a timed call."""
    import openai

    found = Capabilities(base_url, model, models=list_models(base_url, min(timeout, 10.0)),
                         context=context_length(base_url, timeout, fresh=True))
    client = openai.OpenAI(base_url=base_url, api_key=api_key or "unused", timeout=timeout, max_retries=0)
    for form, (prompt, response_format) in _PROBES.items():
        try:
            reply = client.chat.completions.create(model=model, messages=[{"role": "user", "content": prompt}],
                                                   temperature=0, max_tokens=24, response_format=response_format)
        except openai.APIStatusError as exc:
            found.forms[form] = f"refused (HTTP {exc.status_code})"
            continue
        except openai.APIError as exc:
            found.forms[form] = f"failed ({type(exc).__name__})"
            continue
        found.forms[form] = "enforced" if _complies(form, _content(reply), _cut(reply)) else "ignored"
    start = time.perf_counter()
    try:
        reply = client.chat.completions.create(
            model=model, temperature=0, max_tokens=48,
            messages=[{"role": "user", "content": "Name three colours, separated by commas."}])
    except openai.APIError as exc:
        found.error = f"{type(exc).__name__}: {exc}"
        return found
    found.seconds = time.perf_counter() - start
    usage = getattr(reply, "usage", None)
    found.prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
    found.completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
    return found


def _cut(reply) -> bool:
    """The reply stopped at max_tokens."""
    choices = getattr(reply, "choices", None) or []
    return bool(choices) and getattr(choices[0], "finish_reason", None) == "length"


def _content(reply) -> str:
    if isinstance(reply, (str, bytes)):
        return ""
    choices = getattr(reply, "choices", None) or []
    return (choices[0].message.content or "") if choices else ""


def _complies(form: str, content: str, cut: bool = False) -> bool:
    if cut and form == "json_object" and content.lstrip().startswith("{"):
        # the probe's few tokens ran out inside the object (a small model writes a long key): a server
        # that ignored the form would have said "hello"; one that enforces it could only open an object
        return True
    try:
        value = json.loads(content.strip())
    except json.JSONDecodeError:
        return False
    if form == "json_schema":
        return isinstance(value, dict) and set(value) == {"ok"} and isinstance(value["ok"], bool)
    return isinstance(value, dict)
