"""What a method's trace shows beside its steps: declared sections, each a named read with two renderers.

Every method's runs have steps, candidates, verdicts and backtracks (the trace
recorder's); a method with state of its own (plan versions, constraints, a
ledger) declares `trace_sections`, a tuple of TraceSection. `load_trace` reads
each declared section with its named Cypher read (parameter $run_id) into the
trace under `key`; `kgtool trace show` prints each with its `text` renderer and
the HTML page adds each with its `html` renderer, so neither names a method.
"""
from __future__ import annotations

import html
import importlib
import json
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterable


@dataclass(frozen=True)
class TraceSection:
    """One part of a method's trace: rows from `read`, shown by `text` (lines) and `html` (an element)."""

    key: str  # where load_trace puts the rows (and the HTML element's id)
    title: str
    read: str  # a named Cypher read taking $run_id
    text: Callable[[list[dict]], list[str]]
    html: Callable[[list[dict]], str]


def sections_for(method: str | None, methods=None) -> tuple[TraceSection, ...]:
    """The sections method `method` declares, looked up in `methods` (a Registry; None: the built-in one).

    A run of a method that is no longer registered shows its steps only.
    """
    if not method:
        return ()
    if methods is None:
        from kgtool.reason.method_registry import METHODS

        methods = METHODS
    if method not in methods:
        return ()
    return tuple(getattr(methods.get(method), "trace_sections", ()) or ())


def method_class_address(method: object) -> str:
    """"module:Class" of a method instance, stored on its Run so its sections can be found without a registry."""
    cls = type(method)
    return f"{cls.__module__}:{cls.__qualname__}"


def sections_of_run(run: dict, methods=None) -> tuple[TraceSection, ...]:
    """The sections of the method class that answered `run` (its address is stored in the Run's settings);
    else those its method name has in `methods` (None: the built-in registry).

    The class is taken from a module already loaded, or imported when it is one of kgtool's own (a
    method registered only in another process shows its steps only).
    """
    try:
        address = json.loads(run.get("settings") or "{}").get("method_class") or ""
    except (TypeError, ValueError, AttributeError):
        address = ""
    module_name, _, qualname = address.partition(":")
    if module_name and qualname:
        module = sys.modules.get(module_name)
        try:
            if module is None and module_name.startswith("kgtool."):
                module = importlib.import_module(module_name)
            if module is not None:
                cls = module
                for part in qualname.split("."):
                    cls = getattr(cls, part)
                return tuple(getattr(cls, "trace_sections", ()) or ())
        except (ImportError, AttributeError):
            pass
    return sections_for(run.get("method"), methods)


def read_sections(db, run_id: str, sections: Iterable[TraceSection]) -> dict[str, list[dict]]:
    """Each section's rows, by key."""
    return {s.key: db.read(s.read, run_id=run_id) for s in sections}


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def num(value: Any) -> str:
    """A figure for people: never in exponent notation (a p of 1.4e-06 reads as 0.0000014)."""
    if value is None:
        return "—"
    if not isinstance(value, float):
        return str(value)
    if value == 0 or abs(value) >= 0.001:
        return f"{value:.4g}" if abs(value) < 1e6 else f"{value:,.0f}"
    return f"{value:.10f}".rstrip("0")


def html_table(table_id: str, caption: str, headers: Iterable[str],
               rows: Iterable[tuple[str, Any, Iterable[Any]]]) -> str:
    """A caption table; each row is (data attribute name, its value, cells), every value escaped."""
    head = "".join(f"<th scope='col'>{h}</th>" for h in headers)
    body = "".join(f'<tr {attr}="{esc(value)}">' + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>"
                   for attr, value, cells in rows)
    return (f"<table id='{table_id}'><caption>{caption}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>")
