"""The generic sub-questions of a hop whose relation the data gives no question phrasing for.

The offline planner writes them (kgtool.reason.agents.offline.plan_structured.subquestion_for); a trace
reads them back (`read_generic`) to show such a hop in the relation label's own words, "T
-landlocked-> ?", rather than as a template that does not read as English ("What is the landlocked of
T?").
"""
from __future__ import annotations

import re

GENERIC_OUT = "What is the {label} of {entity}?"
GENERIC_IN = "Which entity has {entity} as its {label}?"
_PATTERNS = [(re.compile(re.escape(template).replace(r"\{label\}", "(?P<label>.+?)")
                         .replace(r"\{entity\}", "(?P<entity>.+?)") + "$"), direction)
             for template, direction in ((GENERIC_OUT, "out"), (GENERIC_IN, "in"))]


def read_generic(subquestion: str | None) -> tuple[str, str, str] | None:
    """(entity, label, direction) of a generic sub-question; None for any other text."""
    for pattern, direction in _PATTERNS:
        found = pattern.match(subquestion or "")
        if found:
            return found.group("entity"), found.group("label"), direction
    return None


def in_label_words(subquestion: str | None) -> str | None:
    """How a trace shows a sub-question: a generic one as the hop it asks, "T -landlocked-> ?" (or
    "? -capital-> X" asked backwards); any other text as it is."""
    read = read_generic(subquestion)
    if read is None:
        return subquestion
    entity, label, direction = read
    return f"{entity} -{label}-> ?" if direction == "out" else f"? -{label}-> {entity}"
