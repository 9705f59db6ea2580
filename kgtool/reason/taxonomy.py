"""Error taxonomies: the types a method's judge may give a failed step or chain.

A Verdict's `error_type` is a member of its method's taxonomy; the trace
recorder refuses any other value, so an analyst's histogram of error types
per method never holds a stray spelling.
"""
from __future__ import annotations

from enum import StrEnum

from kgtool.errors import KgToolError


class CareError(StrEnum):
    """The CARE critic's four checks, in the order it applies them."""

    LOCAL_RELEVANCE = "local_relevance"  # the hop's fact does not answer its sub-question
    BRIDGE_CONTINUITY = "bridge_continuity"  # the hop does not start where the previous one ended
    GROUNDING = "grounding"  # the evidence does not state the hop's fact
    FINAL_DEDUCTION = "final_deduction"  # the answer is not what the chain concludes


def check(taxonomy: type[StrEnum] | None, error_type: str | None) -> str | None:
    """`error_type` as a plain string, after checking it belongs to the taxonomy."""
    if error_type is None or taxonomy is None:
        return None if error_type is None else str(error_type)
    try:
        return taxonomy(error_type).value
    except ValueError:
        known = ", ".join(m.value for m in taxonomy)
        raise KgToolError(f"error type {error_type!r} is not in the {taxonomy.__name__} taxonomy ({known})") from None
