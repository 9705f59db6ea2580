"""Registries of named, versioned parts (spaCy-style).

A registry maps a name to a factory; the factory's keyword arguments are its
config keys, so `registry.create("care", tau_max=1)` and `tau_max = 1` in a
config mean the same thing, and an unknown key is an error that lists the
known ones. Entries may be given as "module:attribute" strings and are
imported on first use, so listing the methods imports no model code.

The built-in registries are module-level defaults; a KnowledgeGraph works on
copies (`Registry.copy`), so what one graph or test registers does not leak
into another.
"""
from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import Any, Callable

from kgtool.errors import ConfigError


@dataclass
class Entry:
    name: str
    target: Callable[..., Any] | str  # a factory, or "module:attribute" imported on first use
    version: str = "1"
    description: str = ""

    def factory(self) -> Callable[..., Any]:
        if isinstance(self.target, str):
            module, _, attr = self.target.partition(":")
            self.target = getattr(importlib.import_module(module), attr)
        return self.target

    def config_keys(self) -> list[str] | None:
        """The keyword arguments the factory takes (None when it takes any)."""
        params = inspect.signature(self.factory()).parameters.values()
        if any(p.kind is p.VAR_KEYWORD for p in params):
            return None
        return [p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]


class Registry:
    """Named factories of one kind of part (methods, agents, scorers, extractors, embedders)."""

    def __init__(self, kind: str, entries: dict[str, Entry] | None = None):
        self.kind = kind
        self._entries: dict[str, Entry] = dict(entries or {})

    def register(self, name: str, target: Callable[..., Any] | str | None = None, *, version: str = "1",
                 description: str = "", replace: bool = False):
        """Register `target` under `name`; without a target, returns a decorator."""
        if target is None:
            def decorate(obj):
                self.register(name, obj, version=version, description=description, replace=replace)
                return obj
            return decorate
        if name in self._entries and not replace:
            raise ConfigError(f"a {self.kind} named {name!r} is already registered; "
                              "pick another name or pass replace=True")
        if not description and not isinstance(target, str):
            description = (inspect.getdoc(target) or "").split("\n", 1)[0]
        self._entries[name] = Entry(name, target, version, description)
        return target

    def entry(self, name: str) -> Entry:
        try:
            return self._entries[name]
        except KeyError:
            raise ConfigError(f"unknown {self.kind} {name!r}; registered: {', '.join(self.names()) or 'none'}") from None

    def get(self, name: str) -> Callable[..., Any]:
        return self.entry(name).factory()

    def create(self, name: str, *args: Any, **config: Any) -> Any:
        """Build the part `name` from its config; unknown config keys are an error."""
        entry = self.entry(name)
        keys = entry.config_keys()
        if keys is not None:
            unknown = sorted(set(config) - set(keys))
            if unknown:
                raise ConfigError(f"{self.kind} {name!r} has no setting {', '.join(unknown)}; "
                                  f"its settings: {', '.join(k for k in keys if k not in ('self',)) or 'none'}")
        return entry.factory()(*args, **config)

    def names(self) -> list[str]:
        return sorted(self._entries)

    def entries(self) -> list[Entry]:
        return [self._entries[n] for n in self.names()]

    def copy(self) -> "Registry":
        return Registry(self.kind, {n: Entry(e.name, e.target, e.version, e.description)
                                    for n, e in self._entries.items()})

    def __contains__(self, name: object) -> bool:
        return name in self._entries
