"""A JSON-speaking client for any OpenAI-compatible chat endpoint.

The reasoning agents need one thing from an LLM: a JSON value of a known shape.
`LLMClient.chat_json` sends a system and a user message at temperature 0,
pulls the JSON out of the reply, validates it, and asks again (telling the
model what was wrong) when the reply cannot be used. Transport failures
(timeouts, refused connections, 408/409/429/5xx) are retried with exponential
backoff; anything else is reported at once as an LLMError.

Validated answers are cached on disk, keyed by model, messages and
temperature, so re-running an evaluation costs no tokens. Usage is counted
three ways: in total (`usage`), per purpose (`usage_for`, one per agent role)
and per caller context (`tracking`, for per-question accounting when several
worker threads share one client).
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import logging
import os
import random
import re
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

from kgtool.config import Settings
from kgtool.core.types import Usage
from kgtool.errors import ConfigError, LLMError, require

log = logging.getLogger(__name__)

T = TypeVar("T")

# Problems a validator may raise on an unexpected shape; all mean "ask again".
_SHAPE_ERRORS = (ValueError, TypeError, KeyError, IndexError)

# Status codes worth retrying: the server is busy, overloaded or restarting.
_RETRY_STATUS = {408, 409, 429}

# Usage sinks of the current caller context (see LLMClient.tracking).
_SINKS: contextvars.ContextVar[tuple[Usage, ...]] = contextvars.ContextVar("kgtool_llm_usage_sinks", default=())

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def extract_json(text: str) -> Any:
    """The JSON value in a model reply.

    Models wrap JSON in code fences or surround it with prose; take a fenced
    block or the whole reply when either parses, else the longest JSON object
    or list that can be decoded from inside the text.
    """
    text = (text or "").strip()
    if not text:
        raise ValueError("the reply was empty")
    for candidate in [*_FENCE.findall(text), text]:
        try:
            return json.loads(candidate.strip())
        except json.JSONDecodeError:
            pass
    decoder = json.JSONDecoder()
    best: tuple[int, Any] | None = None
    i = 0
    while i < len(text):
        if text[i] in "{[":
            try:
                value, end = decoder.raw_decode(text, i)
            except json.JSONDecodeError:
                i += 1
                continue
            # a bracketed aside in prose ("step [2]") is shorter than the answer
            if best is None or end - i > best[0]:
                best = (end - i, value)
            i = end
            continue
        i += 1
    if best is None:
        raise ValueError("the reply holds no JSON object or list")
    return best[1]


class _Retryable(Exception):
    """A transport failure that another attempt may fix."""

    def __init__(self, problem: str, wait: float | None = None):
        super().__init__(problem)
        self.wait = wait


class LLMClient:
    """Validated JSON answers from an OpenAI-compatible endpoint.

    `usage.calls` counts replies the endpoint actually produced (re-asks
    included, failed transport attempts excluded); `usage.cached_calls` counts
    answers served from the disk cache, which cost no tokens. `latency_ms`
    sums the wall time spent waiting on the endpoint, failed attempts included.
    """

    temperature = 0.0

    def __init__(
        self,
        settings: Settings,
        *,
        cache: bool = True,
        max_reasks: int = 2,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
    ):
        if not settings.llm_base_url and not settings.llm_api_key:
            raise ConfigError(
                "no LLM endpoint is configured: set KGTOOL_LLM_BASE_URL (or OPENAI_BASE_URL) to an "
                "OpenAI-compatible server, or set KGTOOL_LLM_API_KEY (or OPENAI_API_KEY) to use OpenAI; "
                "otherwise use the offline agents"
            )
        self.settings = settings
        self.model = settings.llm_model
        self.base_url = settings.llm_base_url
        self.timeout = float(settings.llm_timeout)
        self.max_retries = max(0, int(settings.llm_max_retries))
        self.max_reasks = max(0, max_reasks)
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.cache_dir: Path | None = settings.cache_dir / "llm" if cache else None
        self.usage = Usage()
        self.latency_ms = 0.0
        self._by_purpose: dict[str, Usage] = {}
        self._lock = threading.Lock()
        self._client = None  # built on first use: importing openai is not free

    # ------------------------------------------------------------------ public

    def chat_json(self, system: str, user: str, validate: Callable[[Any], T], *, purpose: str = "") -> T:
        """Ask, parse the JSON in the reply, validate it; re-ask on a bad reply.

        `validate` receives the decoded JSON and returns the value to hand
        back, raising ValueError (naming the problem) on a bad shape.
        """
        what = purpose or "an LLM call"
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        key = self._cache_key(messages)
        cached = self._cache_get(key, validate, what)
        if cached is not None:
            self._record(purpose, Usage(cached_calls=1))
            return cached[0]
        problem = ""
        for asked in range(self.max_reasks + 1):
            content = self._complete(messages, purpose, what)
            try:
                value = validate(extract_json(content))
            except _SHAPE_ERRORS as exc:
                problem = str(exc) or type(exc).__name__
                log.debug("%s: unusable reply (%s), re-asking (%d)", what, problem, asked + 1)
                messages = [*messages, {"role": "assistant", "content": content}, self._correction(problem)]
                continue
            self._cache_put(key, content, purpose)
            return value
        raise LLMError(
            f"the LLM ({self.model}) kept giving unusable output for {what}: {self.max_reasks + 1} replies, "
            f"the last one rejected because {problem}. Try a stronger model (KGTOOL_LLM_MODEL) "
            f"or the offline agents."
        )

    def usage_for(self, purpose: str) -> Usage:
        """The live usage of one purpose (agents pass their role as purpose)."""
        with self._lock:
            return self._by_purpose.setdefault(purpose, Usage())

    @contextlib.contextmanager
    def tracking(self) -> Iterator[Usage]:
        """Collect the usage of calls made in this context (thread) only.

        Worker threads that share one client each get their own figures, so
        a run can record the tokens of its own question.
        """
        sink = Usage()
        token = _SINKS.set((*_SINKS.get(), sink))
        try:
            yield sink
        finally:
            _SINKS.reset(token)

    # --------------------------------------------------------------- transport

    def _complete(self, messages: list[dict], purpose: str, what: str) -> str:
        """One reply from the endpoint, retrying transport failures."""
        problem, wait = "", None
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            if attempt:
                self._backoff(attempt, wait)
            try:
                return self._send(messages, purpose, what)
            except _Retryable as exc:
                problem, wait = str(exc), exc.wait
                log.debug("%s: attempt %d of %d failed: %s", what, attempt + 1, attempts, problem)
        raise LLMError(
            f"the LLM endpoint {self._where()} failed {attempts} time(s) for {what}; last problem: {problem}. "
            f"Check that the server is up and KGTOOL_LLM_BASE_URL, KGTOOL_LLM_MODEL and KGTOOL_LLM_TIMEOUT "
            f"are right, or use the offline agents."
        )

    def _send(self, messages: list[dict], purpose: str, what: str) -> str:
        openai = require("openai", "llm", "LLM agents")
        client = self._openai()
        start = time.perf_counter()
        try:
            response = client.chat.completions.create(
                model=self.model, messages=messages, temperature=self.temperature
            )
        except openai.APITimeoutError as exc:
            raise _Retryable(f"no answer within {self.timeout:g} s") from exc
        except openai.APIConnectionError as exc:
            raise _Retryable(f"cannot connect ({exc})") from exc
        except openai.APIStatusError as exc:
            self._raise_status(exc, what)
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
        self._record(
            purpose,
            Usage(
                calls=1,
                prompt_tokens=int(getattr(used, "prompt_tokens", 0) or 0),
                completion_tokens=int(getattr(used, "completion_tokens", 0) or 0),
            ),
        )
        choices = getattr(response, "choices", None) or []
        return (choices[0].message.content or "") if choices else ""

    def _raise_status(self, exc: Any, what: str) -> None:
        status = int(exc.status_code)
        detail = _error_detail(exc)
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

    def _correction(self, problem: str) -> dict:
        return {
            "role": "user",
            "content": (
                f"Your previous reply could not be used: {problem}. "
                "Answer again with only the JSON the instructions ask for, and no other text."
            ),
        }

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

    def _cache_key(self, messages: list[dict]) -> str:
        blob = json.dumps(
            {"model": self.model, "messages": messages, "temperature": self.temperature},
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _cache_path(self, key: str) -> Path:
        assert self.cache_dir is not None
        return self.cache_dir / key[:2] / f"{key}.json"

    def _cache_get(self, key: str, validate: Callable[[Any], T], what: str) -> tuple[T] | None:
        if self.cache_dir is None:
            return None
        path = self._cache_path(key)
        try:
            content = json.loads(path.read_text(encoding="utf-8"))["content"]
            return (validate(extract_json(content)),)
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
        record = {"model": self.model, "purpose": purpose, "content": content, "created": time.time()}
        with self._lock:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                # write-then-rename so a reader never sees half an entry
                fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(record, handle, ensure_ascii=False)
                os.replace(tmp, path)
            except OSError as exc:
                log.warning("could not write the LLM cache entry %s: %s", path, exc)


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
