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


class QueryNotFoundError(KgToolError):
    """A named Cypher statement does not exist in the cypher/ folder."""


class ReadOnlyViolation(KgToolError):
    """An analyst query tried to write."""


class InputError(KgToolError):
    """Input data is malformed; the message names the file, line or record."""


class LLMError(KgToolError):
    """An LLM endpoint failed, timed out or kept answering malformed output."""


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
