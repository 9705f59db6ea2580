"""A JSON-speaking client for any OpenAI-compatible chat endpoint.

The reasoning agents need one thing from an LLM: a JSON value of a known
shape. `LLMClient.ask(spec)` sends a role's system and user messages with the
role's reply schema as `response_format`, reads the reply itself (never JSON
mined from prose), checks it against the same schema, rejects template text
and examples copied from the prompt, and runs the role's validator. A reply
that fails is asked again once, with the problem alone appended to the task
(not the whole bad reply); a reply still unusable raises `UnusableReplyError`,
which the agents layer turns into the offline role's answer for that step.

What an endpoint supports is found out once per endpoint and model and
remembered for the process: json_schema first; a server that refuses it gets
json_object, then plain text (`llm_output_form` forces one). Every call sets
`max_tokens` from its schema, so a small model cannot ramble until the
timeout, and a prompt larger than the model's context is shortened (longest
texts first). Transport failures are retried with backoff (a timeout once).

Validated answers are cached on disk, keyed by endpoint, model, messages and
request options; a reply that failed is never cached. Usage is counted in
total (`usage`), per purpose (`usage_for`) and per caller context
(`tracking`): tokens, calls, structured calls, unusable replies, re-asks,
output-form and role fallbacks, trimmed prompts.
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import logging
import os
import random
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

from kgtool.config import Settings
from kgtool.core.types import Usage
from kgtool.errors import ConfigError, LLMError, require
from kgtool.models import llm_probe
from kgtool.models.llm_reply import (
    UnusableReply,
    check_copied,
    check_schema,
    enum_values,
    estimate_tokens,
    fit_user_message,
    parse_reply,
    reply_token_budget,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

# Problems a validator may raise on an unexpected shape; all mean "ask again".
_SHAPE_ERRORS = (ValueError, TypeError, KeyError, IndexError)

# Status codes worth retrying: the server is busy, overloaded or restarting.
_RETRY_STATUS = {408, 409, 429}

# Usage sinks of the current caller context (see LLMClient.tracking).
_SINKS: contextvars.ContextVar[tuple[Usage, ...]] = contextvars.ContextVar("kgtool_llm_usage_sinks", default=())
# the prompts shortened to fit the context in the innermost `tracking` block, not yet taken for a Step
_TRIMS: contextvars.ContextVar[list | None] = contextvars.ContextVar("kgtool_llm_prompt_trims", default=None)


def take_prompt_trims() -> list[dict]:
    """The prompts trimmed in this answer (the innermost `tracking` block) since the last call, then forgets them.

    One dict per trimmed prompt: role, context (tokens), tokens_before / tokens_after (estimated) and
    chars_before / chars_after of the task data. The trace recorder stores them on the next Step it writes.
    """
    pending = _TRIMS.get()
    if not pending:
        return []
    taken = list(pending)
    pending.clear()
    return taken



extract_json = parse_reply  # the reply's JSON: the whole reply, a fenced block, or its first object


class UnusableReplyError(LLMError):
    """A role's replies stayed unusable after the re-ask; `role` and `problem` say which and why."""

    def __init__(self, message: str, role: str, problem: str):
        super().__init__(message)
        self.role = role
        self.problem = problem


class _Retryable(Exception):
    """A transport failure that another attempt may fix."""

    def __init__(self, problem: str, wait: float | None = None, timeout: bool = False):
        super().__init__(problem)
        self.wait = wait
        self.timeout = timeout


class _FormRefused(Exception):
    """The endpoint refused the request's response_format."""


class _Unparseable(UnusableReply):
    """A reply that is not JSON of the reply schema's shape (counted apart from content refused by the checks)."""


class LLMClient:
    """Validated JSON answers from an OpenAI-compatible endpoint.

    `usage.calls` counts replies the endpoint produced (re-asks included,
    failed transport attempts excluded); `usage.cached_calls` counts answers
    served from the disk cache. `latency_ms` sums the wall time spent waiting
    on the endpoint, failed attempts included.
    """

    temperature = 0.0

    def __init__(self, settings: Settings, *, cache: bool = True, max_reasks: int = 1, backoff_base: float = 0.5,
                 backoff_max: float = 8.0, timeout_retries: int = 1):
        base_url, model = settings.llm_base_url, settings.llm_model
        if not base_url and not settings.llm_api_key:
            # no endpoint configured: the local server of this home (`kgtool llm serve`), when it runs
            from kgtool.models.llm_server import running_endpoint

            local = running_endpoint(settings)
            if local is not None:
                base_url = local.base_url
                model = local.model if model == Settings.__dataclass_fields__["llm_model"].default else model
        if not base_url and not settings.llm_api_key:
            raise ConfigError(
                "no LLM endpoint is configured: set KGTOOL_LLM_BASE_URL (or OPENAI_BASE_URL) to an "
                "OpenAI-compatible server (`kgtool llm serve` starts a local one), or set KGTOOL_LLM_API_KEY "
                "(or OPENAI_API_KEY) to use OpenAI; otherwise use the offline agents"
            )
        if settings.llm_output_form not in ("auto", *llm_probe.FORMS):
            raise ConfigError(f"llm_output_form={settings.llm_output_form!r}: use auto, {', '.join(llm_probe.FORMS)}")
        self.settings = settings
        self.model = model
        self.base_url = base_url
        self.timeout = float(settings.llm_timeout)
        self.max_retries = max(0, int(settings.llm_max_retries))
        self.timeout_retries = max(0, timeout_retries)
        self.max_reasks = max(0, max_reasks)
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.roles = _role_options(settings.llm_roles)
        self.cache_dir: Path | None = settings.cache_dir / "llm" if cache else None
        self.usage = Usage()
        self.latency_ms = 0.0
        self._by_purpose: dict[str, Usage] = {}
        self._lock = threading.Lock()
        self._client = None  # built on first use: importing openai is not free

    # ------------------------------------------------------------------ public

    def ask(self, spec) -> Any:
        """A role's validated reply for a PromptSpec (kgtool.reason.prompts.spec)."""
        return self.chat_json(spec.system, spec.user, spec.validate, purpose=spec.role, schema=spec.schema)

    def chat_json(self, system: str, user: str, validate: Callable[[Any], T], *, purpose: str = "",
                  schema: dict | None = None) -> T:
        """Ask, read the reply's JSON, check it against `schema` and `validate` it; re-ask once on a bad reply.

        `validate` receives the decoded JSON and returns the value to hand back,
        raising ValueError (naming the problem) when the reply cannot be used.
        """
        what = purpose or "an LLM call"
        model, temperature = self._options_for(purpose)
        max_tokens = reply_token_budget(schema)
        user = self._fit(system, user, max_tokens, model, purpose)
        allowed = enum_values(schema)

        def use(content: str) -> T:
            try:
                value = check_schema(parse_reply(content), schema)
            except UnusableReply as exc:
                raise _Unparseable(str(exc)) from exc
            check_copied(value, system, user, allowed)
            return validate(value)

        options = {"model": model, "temperature": temperature, "max_tokens": max_tokens, "schema": schema}
        key = self._cache_key(system, user, options)
        cached = self._cache_get(key, use, what)
        if cached is not None:
            self._record(purpose, Usage(cached_calls=1))
            return cached[0]
        problem = ""
        for asked in range(self.max_reasks + 1):
            task = user if not problem else f"{user}\n\n{_correction(problem)}"
            messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]
            content = self._complete(messages, options, purpose, what)
            try:
                value = use(content)
            except _SHAPE_ERRORS as exc:
                problem = str(exc) or type(exc).__name__
                again = asked < self.max_reasks
                self._record(purpose, Usage(unusable_replies=1, reasks=int(again),
                                            unparseable_replies=int(isinstance(exc, _Unparseable))))
                log.debug("%s: unusable reply (%s)%s", what, problem, ", re-asking" if again else "")
                continue
            self._cache_put(key, content, purpose)
            return value
        raise UnusableReplyError(
            f"the LLM ({model}) gave unusable output for {what}: {self.max_reasks + 1} replies, the last one "
            f"rejected because {problem}. Try a stronger model (KGTOOL_LLM_MODEL, or per role KGTOOL_LLM_ROLES) "
            f"or the offline agents.", purpose, problem)

    def count_role_fallback(self, purpose: str) -> None:
        """Meter a step that the offline role did because this role's replies were unusable."""
        self._record(purpose, Usage(role_fallbacks=1))

    def output_form(self, model: str | None = None) -> str:
        """The output form this client uses with `model` on its endpoint (found out on first use)."""
        if self.settings.llm_output_form != "auto":
            return self.settings.llm_output_form
        return llm_probe.known_form(self._where(), model or self.model) or llm_probe.FORMS[0]

    def usage_for(self, purpose: str) -> Usage:
        """The live usage of one purpose (agents pass their role as purpose)."""
        with self._lock:
            return self._by_purpose.setdefault(purpose, Usage())

    @contextlib.contextmanager
    def tracking(self) -> Iterator[Usage]:
        """Collect the usage of calls made in this context (thread) only."""
        sink = Usage()
        token = _SINKS.set((*_SINKS.get(), sink))
        trims = _TRIMS.set([])
        try:
            yield sink
        finally:
            _TRIMS.reset(trims)
            _SINKS.reset(token)

    # ----------------------------------------------------------------- options

    def _options_for(self, purpose: str) -> tuple[str, float]:
        role = self.roles.get(purpose, {})
        return str(role.get("model") or self.model), float(role.get("temperature", self.temperature))

    def _fit(self, system: str, user: str, max_tokens: int, model: str, purpose: str) -> str:
        context = int(self.settings.llm_context) or llm_probe.context_length(self.base_url, self.timeout)
        if not context:
            return user
        room = context - max_tokens - estimate_tokens(system) - 64
        fitted, cut = fit_user_message(user, max(room, 64))
        if cut:
            self._record(purpose, Usage(trimmed_prompts=1))
            pending = _TRIMS.get()
            if pending is not None:
                pending.append({"role": purpose or "reply", "context": context,
                                "tokens_before": estimate_tokens(user), "tokens_after": estimate_tokens(fitted),
                                "chars_before": len(user), "chars_after": len(fitted)})
            log.debug("%s: task data shortened to fit a context of %d tokens", purpose or model, context)
        return fitted

    # --------------------------------------------------------------- transport

    def _complete(self, messages: list[dict], options: dict, purpose: str, what: str) -> str:
        """One reply from the endpoint: retries transport failures, steps down refused output forms."""
        problem, wait = "", None
        attempts, timeouts = 0, 0
        while True:
            form = self._form(options["model"])
            try:
                return self._send(messages, options, form, purpose, what)
            except _FormRefused as exc:
                llm_probe.remember_form(self._where(), options["model"], llm_probe.simpler(form))
                self._record(purpose, Usage(format_fallbacks=1))
                log.info("%s refused response_format %s (%s); using %s from now on", self._where(), form, exc,
                         llm_probe.simpler(form))
                continue
            except _Retryable as exc:
                problem, wait = str(exc), exc.wait
                attempts += 1
                timeouts += int(exc.timeout)
                log.debug("%s: attempt %d failed: %s", what, attempts, problem)
                if attempts > self.max_retries or timeouts > self.timeout_retries:
                    break
                self._backoff(attempts, wait)
        raise LLMError(
            f"the LLM endpoint {self._where()} failed {attempts} time(s) for {what}; last problem: {problem}. "
            f"Check that the server is up and KGTOOL_LLM_BASE_URL, KGTOOL_LLM_MODEL and KGTOOL_LLM_TIMEOUT "
            f"are right (`kgtool llm check` tests them), or use the offline agents."
        )

    def _form(self, model: str) -> str:
        if self.settings.llm_output_form != "auto":
            return self.settings.llm_output_form
        return llm_probe.known_form(self._where(), model) or llm_probe.FORMS[0]

    def _send(self, messages: list[dict], options: dict, form: str, purpose: str, what: str) -> str:
        openai = require("openai", "llm", "LLM agents")
        client = self._openai()
        extra = {}
        schema = options["schema"]
        if form == "json_schema" and schema:
            extra["response_format"] = {"type": "json_schema",
                                        "json_schema": {"name": (purpose or "reply")[:64], "schema": schema}}
        elif form in ("json_schema", "json_object"):
            extra["response_format"] = {"type": "json_object"}
        start = time.perf_counter()
        try:
            response = client.chat.completions.create(model=options["model"], messages=messages,
                                                      temperature=options["temperature"],
                                                      max_tokens=options["max_tokens"], **extra)
        except openai.APITimeoutError as exc:
            raise _Retryable(f"no answer within {self.timeout:g} s", timeout=True) from exc
        except openai.APIConnectionError as exc:
            raise _Retryable(f"cannot connect ({exc})") from exc
        except openai.APIStatusError as exc:
            self._raise_status(exc, what, bool(extra))
        except openai.APIError as exc:
            raise LLMError(f"the LLM endpoint {self._where()} sent an unreadable response for {what}: {exc}") from exc
        finally:
            self._add_latency(time.perf_counter() - start)
        if isinstance(response, (str, bytes)):
            # openai hands back the raw body when it is not JSON: a web page or a proxy answered
            raise LLMError(
                f"the LLM endpoint {self._where()} answered {what} with a body that is not a chat completion "
                f"(it begins {_preview(response)!r}); check that KGTOOL_LLM_BASE_URL is the API's address "
                f"(it usually ends in /v1), not a web page or a login proxy"
            )
        used = getattr(response, "usage", None)
        self._record(purpose, Usage(
            calls=1, structured_calls=int("response_format" in extra and form == "json_schema" and bool(schema)),
            prompt_tokens=int(getattr(used, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(used, "completion_tokens", 0) or 0)))
        choices = getattr(response, "choices", None) or []
        return (choices[0].message.content or "") if choices else ""

    def _raise_status(self, exc: Any, what: str, formatted: bool) -> None:
        status = int(exc.status_code)
        detail = _error_detail(exc)
        if formatted and status in (400, 415, 422, 501) and llm_probe.mentions_format(detail):
            raise _FormRefused(f"HTTP {status}: {detail}") from exc
        if status in _RETRY_STATUS or status >= 500:
            raise _Retryable(f"HTTP {status}: {detail}", _retry_after(exc)) from exc
        if status in (401, 403):
            hint = "check KGTOOL_LLM_API_KEY (or OPENAI_API_KEY)"
        elif status == 404:
            hint = f"check KGTOOL_LLM_BASE_URL (it usually ends in /v1) and that model {self.model!r} exists"
        else:
            hint = "the request was refused as sent"
        raise LLMError(f"the LLM endpoint {self._where()} answered HTTP {status} for {what}: {detail}; {hint}") from exc

    def _backoff(self, attempt: int, wait: float | None) -> None:
        delay = self.backoff_base * (2 ** (attempt - 1))
        if wait is not None:  # the server said when to come back
            delay = max(delay, wait)
        delay = min(delay, self.backoff_max)
        # jitter keeps parallel workers from retrying in lockstep
        time.sleep(delay * (1 + 0.1 * random.random()))

    def _openai(self):
        with self._lock:
            if self._client is None:
                openai = require("openai", "llm", "LLM agents")
                self._client = openai.OpenAI(
                    base_url=self.base_url or None,
                    # local servers ignore the key, but the client insists on one
                    api_key=self.settings.llm_api_key or "unused",
                    timeout=self.timeout,
                    max_retries=0,  # retries are ours, so they are counted and bounded here
                )
            return self._client

    def _where(self) -> str:
        return self.base_url or "api.openai.com"

    # ---------------------------------------------------------------- counters

    def _record(self, purpose: str, used: Usage) -> None:
        with self._lock:
            self.usage.add(used)
            self._by_purpose.setdefault(purpose, Usage()).add(used)
            for sink in _SINKS.get():
                sink.add(used)

    def _add_latency(self, seconds: float) -> None:
        with self._lock:
            self.latency_ms += seconds * 1000.0

    # ------------------------------------------------------------------- cache

    def _cache_key(self, system: str, user: str, options: dict) -> str:
        blob = json.dumps({"endpoint": self._where(), "form": self._form(options["model"]), "system": system,
                           "user": user, **options}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _cache_path(self, key: str) -> Path:
        assert self.cache_dir is not None
        return self.cache_dir / key[:2] / f"{key}.json"

    def _cache_get(self, key: str, use: Callable[[str], T], what: str) -> tuple[T] | None:
        if self.cache_dir is None:
            return None
        path = self._cache_path(key)
        try:
            content = json.loads(path.read_text(encoding="utf-8"))["content"]
            return (use(content),)
        except FileNotFoundError:
            return None
        except (OSError, json.JSONDecodeError, *_SHAPE_ERRORS) as exc:
            # a stale or damaged entry (e.g. the validator got stricter) is just a miss
            log.debug("%s: ignoring cache entry %s (%s)", what, path, exc)
            return None

    def _cache_put(self, key: str, content: str, purpose: str) -> None:
        if self.cache_dir is None:
            return
        path = self._cache_path(key)
        record = {"endpoint": self._where(), "model": self.model, "purpose": purpose, "content": content,
                  "created": time.time()}
        with self._lock:
            try:
                from kgtool.core.files import private_dir

                private_dir(path.parent)  # 0700, as everything kgtool writes under its home
                # write-then-rename (mkstemp's file is 0600) so a reader never sees half an entry
                fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(record, handle, ensure_ascii=False)
                os.replace(tmp, path)
            except OSError as exc:
                log.warning("could not write the LLM cache entry %s: %s", path, exc)


def _correction(problem: str) -> str:
    return (f"Your previous reply could not be used: {problem}. "
            "Reply again with only the JSON object the instructions ask for, with values for this task.")


def _role_options(raw: Any) -> dict[str, dict]:
    """Per-role model and temperature from the llm_roles setting (JSON text or a TOML table)."""
    if not raw:
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"llm_roles is not JSON ({exc}); write e.g. "
                              '{"critic": {"model": "gpt-4o", "temperature": 0}}') from exc
    if not isinstance(raw, dict) or not all(isinstance(v, dict) for v in raw.values()):
        raise ConfigError('llm_roles must map a role to {"model": ..., "temperature": ...}')
    for role, options in raw.items():
        unknown = set(options) - {"model", "temperature"}
        if unknown:
            raise ConfigError(f"llm_roles.{role}: unknown key(s) {', '.join(sorted(unknown))}; "
                              "use model and temperature")
    return raw


def _preview(body: str | bytes, limit: int = 60) -> str:
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    return " ".join(text.split())[:limit]


def _error_detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return str(exc)


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


__all__ = ["LLMClient", "UnusableReply", "UnusableReplyError", "extract_json"]
