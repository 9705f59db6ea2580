"""A local OpenAI-compatible chat endpoint for tests: real HTTP, scripted replies.

`StubLLM` runs `http.server` in a thread on 127.0.0.1 and a free port and
answers POST /v1/chat/completions (and /chat/completions) with
chat.completion JSON, including `usage` token counts. Every request is
recorded (`stub.requests`).

Choosing a reply, first match wins:
1. the queue: `stub.script(*replies)` appends replies consumed one per request;
2. the rules: `stub.on(predicate, *replies)` where predicate(messages) -> bool,
   or `stub.on_role("critic", *replies)`. A rule's replies are used in order
   and its last reply repeats, so `stub.on_role("critic", REJECT, ACCEPT)`
   rejects the first chain and accepts every later one;
3. `stub.default` if set; otherwise HTTP 400 "no scripted reply", which the
   client does not retry, so a missing script fails fast and loudly.

A reply is a string (the assistant content), a `Reply` (content, delay to
force a client timeout, HTTP error status, token overrides), or a callable
taking the request messages and returning either of those.

Telling the CARE roles apart: every kgtool system prompt starts with a line
`ROLE: <role>` (planner, selector, critic, generator); `role_of(messages)`
reads it. The first user message is the task data as one JSON object;
`task_data(messages)` decodes it (e.g. the selector's "candidates", each with
"id" c1.., "head", "relation", "tail", "evidence", "answer"; the critic's
"steps" and "final_answer").

Structured output, as servers differ: `stub.formats` maps "json_schema" and
"json_object" to "ignore" (the default: the request's response_format changes
nothing), "refuse" (HTTP 400 naming response_format) or "enforce" (like a
grammar-constrained server: a reply that breaks the schema, or no scripted
reply at all, becomes the smallest value the schema allows; json_object makes
a non-object "{}"). GET /v1/models lists "stub-model"; GET /props tells
`stub.context` tokens when it is set.

Fixtures: `stub_llm` (a running StubLLM) and `stub_settings` (Settings with
home under tmp_path pointing at the stub, 5 s timeout, 2 retries).
Use `make_client(settings)` for an LLMClient with a fast backoff.
"""
from __future__ import annotations

import dataclasses
import itertools
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Union

import pytest

from kgtool.config import Settings

Messages = list[dict]


@dataclass
class Reply:
    """One scripted answer of the stub."""

    content: str = ""
    delay: float = 0.0  # seconds to wait before answering (longer than the client timeout = a timeout)
    status: int = 200  # anything but 200 sends an OpenAI-style error body
    error: str = "scripted error"
    headers: dict[str, str] = field(default_factory=dict)
    prompt_tokens: int | None = None  # None: counted from the request
    completion_tokens: int | None = None  # None: counted from the content
    body: bytes | None = None  # sent as it is with status 200 (what a web page or a proxy sends)
    content_type: str = "application/json"

    @classmethod
    def text(cls, content: str) -> "Reply":
        return cls(content=content)

    @classmethod
    def json(cls, value: Any) -> "Reply":
        return cls(content=json.dumps(value))

    @classmethod
    def fail(cls, status: int, error: str = "scripted error", **headers: str) -> "Reply":
        return cls(status=status, error=error, headers=headers)

    @classmethod
    def raw(cls, body: str, content_type: str) -> "Reply":
        return cls(body=body.encode("utf-8"), content_type=content_type)

    @classmethod
    def slow(cls, delay: float, content: str = "{}") -> "Reply":
        return cls(content=content, delay=delay)


ReplyLike = Union[str, Reply, Callable[[Messages], Union[str, Reply]]]


@dataclass
class Request:
    """A request the stub received."""

    path: str
    body: dict
    headers: dict[str, str]

    @property
    def messages(self) -> Messages:
        return self.body.get("messages", [])

    @property
    def role(self) -> str | None:
        return role_of(self.messages)

    def text(self) -> str:
        """All message contents joined, for `in` checks."""
        return "\n".join(str(m.get("content", "")) for m in self.messages)


def role_of(messages: Messages) -> str | None:
    """The CARE role from the `ROLE: <role>` first line of the system prompt."""
    for message in messages:
        if message.get("role") == "system":
            match = re.match(r"ROLE:\s*(\w+)", str(message.get("content", "")))
            return match.group(1) if match else None
    return None


def task_data(messages: Messages) -> Any:
    """The JSON task data of the first user message."""
    for message in messages:
        if message.get("role") == "user":
            return json.loads(message["content"])
    raise ValueError("the request has no user message")


def count_tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: words and punctuation marks."""
    return len(re.findall(r"\w+|[^\w\s]", text or ""))


class _Rule:
    def __init__(self, predicate: Callable[[Messages], bool], replies: tuple[ReplyLike, ...]):
        if not replies:
            raise ValueError("a rule needs at least one reply")
        self.predicate = predicate
        self.replies = list(replies)
        self.used = 0

    def next(self) -> ReplyLike:
        reply = self.replies[min(self.used, len(self.replies) - 1)]
        self.used += 1
        return reply


class StubLLM:
    """The stub server; use as a context manager or call start()/stop()."""

    def __init__(self) -> None:
        self.default: ReplyLike | None = None
        self.formats: dict[str, str] = {"json_schema": "ignore", "json_object": "ignore"}
        self.context: int | None = None
        self._queue: list[ReplyLike] = []
        self._rules: list[_Rule] = []
        self._requests: list[Request] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ scripting

    def script(self, *replies: ReplyLike) -> "StubLLM":
        with self._lock:
            self._queue.extend(replies)
        return self

    def on(self, predicate: Callable[[Messages], bool], *replies: ReplyLike) -> "StubLLM":
        with self._lock:
            self._rules.append(_Rule(predicate, replies))
        return self

    def on_role(self, role: str, *replies: ReplyLike) -> "StubLLM":
        return self.on(lambda messages: role_of(messages) == role, *replies)

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self._rules.clear()
            self._requests.clear()
            self.default = None

    @property
    def requests(self) -> list[Request]:
        with self._lock:
            return list(self._requests)

    def requests_for(self, role: str) -> list[Request]:
        return [r for r in self.requests if r.role == role]

    # --------------------------------------------------------------- server

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the stub is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "StubLLM":
        handler = type("StubHandler", (_Handler,), {"stub": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True  # a handler sleeping out a timeout must not block shutdown
        # a short poll interval keeps shutdown (once per test) quick
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="stub-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "StubLLM":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def settings(self, home, **overrides: Any) -> Settings:
        values = dict(
            home=home,
            llm_base_url=self.base_url,
            llm_model="stub-model",
            llm_api_key="stub-key",
            llm_timeout=5.0,
            llm_max_retries=2,
        )
        values.update(overrides)
        return Settings(**values)

    # ------------------------------------------------------------ answering

    def _take(self, request: Request) -> Reply:
        with self._lock:
            self._requests.append(request)
            if self._queue:
                chosen: ReplyLike | None = self._queue.pop(0)
            else:
                rule = next((r for r in self._rules if r.predicate(request.messages)), None)
                chosen = rule.next() if rule else self.default
        form = (request.body.get("response_format") or {}).get("type")
        mode = self.formats.get(form, "ignore")
        if mode == "refuse":
            return Reply.fail(400, f"stub_llm: response_format type {form} is not supported")
        if chosen is None and mode != "enforce":
            return Reply.fail(400, f"stub_llm: no scripted reply for this request (role {request.role!r})")
        if callable(chosen):
            chosen = chosen(request.messages)
        reply = Reply.text(chosen) if isinstance(chosen, str) else (chosen or Reply.text(""))
        if mode == "enforce" and reply.status == 200 and reply.body is None:
            reply = dataclasses.replace(reply, content=_enforced(form, request.body["response_format"], reply.content))
        return reply


def _enforced(form: str, response_format: dict, content: str) -> str:
    """What a server enforcing `response_format` would send instead of `content`."""
    try:
        value = json.loads(content)
    except json.JSONDecodeError:
        value = None
    if form == "json_object":
        return content if isinstance(value, dict) else "{}"
    schema = (response_format.get("json_schema") or {}).get("schema") or {}
    import jsonschema

    if value is not None and jsonschema.Draft202012Validator(schema).is_valid(value):
        return content
    return json.dumps(_smallest(schema))


def _smallest(schema: dict) -> Any:
    """The smallest value a (simple) JSON schema allows."""
    if "anyOf" in schema:
        return _smallest(schema["anyOf"][0])
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {k: _smallest(schema["properties"][k]) for k in schema.get("required", [])}
    if kind == "array":
        return [_smallest(schema.get("items", {})) for _ in range(schema.get("minItems", 0))]
    if kind == "string":
        return "x" * schema.get("minLength", 0)
    if kind in ("number", "integer"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return None


class _Handler(BaseHTTPRequestHandler):
    stub: StubLLM
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        path = self.path.split("?")[0].rstrip("/")
        if path in ("/v1/models", "/models"):
            self._send(200, {"object": "list", "data": [{"id": "stub-model", "object": "model"}]})
        elif path == "/props" and self.stub.context:
            self._send(200, {"default_generation_settings": {"n_ctx": self.stub.context}})
        else:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?")[0].rstrip("/")
        if path not in ("/v1/chat/completions", "/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send(400, {"error": {"message": "request body is not JSON", "type": "invalid_request_error"}})
            return
        request = Request(path=path, body=body, headers={k.lower(): v for k, v in self.headers.items()})
        reply = self.stub._take(request)
        if reply.delay:
            time.sleep(reply.delay)
        if reply.body is not None:
            self._send_bytes(200, reply.body, reply.content_type)
            return
        if reply.status != 200:
            payload = {"error": {"message": reply.error, "type": "stub_error", "code": reply.status}}
            self._send(reply.status, payload, reply.headers)
            return
        prompt = reply.prompt_tokens
        if prompt is None:
            prompt = sum(count_tokens(str(m.get("content", ""))) for m in request.messages)
        completion = reply.completion_tokens
        if completion is None:
            completion = count_tokens(reply.content)
        self._send(200, _completion(body.get("model", "stub-model"), reply.content, prompt, completion), reply.headers)

    def _send(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
        self._send_bytes(status, json.dumps(payload).encode("utf-8"), "application/json", headers)

    def _send_bytes(self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timed out) before the reply was ready


_ids = itertools.count(1)


def _completion(model: str, content: str, prompt_tokens: int, completion_tokens: int) -> dict:
    return {
        "id": f"chatcmpl-stub-{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def make_client(settings: Settings, **options: Any):
    """An LLMClient with a backoff short enough for tests."""
    from kgtool.models.llm import LLMClient

    options.setdefault("backoff_base", 0.01)
    return LLMClient(settings, **options)


@pytest.fixture
def stub_llm():
    from kgtool.models import llm_probe

    llm_probe.forget()  # what earlier endpoints supported says nothing about this one
    with StubLLM() as stub:
        yield stub


@pytest.fixture
def stub_settings(stub_llm: StubLLM, tmp_path) -> Settings:
    return stub_llm.settings(tmp_path / "kgtool-home")
