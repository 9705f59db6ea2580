"""Registries of named, versioned parts (spaCy-style).

A registry maps a name to a factory. A factory with a `Config` attribute (a
frozen kgtool.core.configs.PartConfig dataclass: every setting typed, with its
default and a doc) is built from that config: `registry.create("care",
tau_max=1)` checks names and types against CareConfig and calls
`Care(CareConfig(tau_max=1))`. Any other factory's keyword arguments are its
config keys. Either way an unknown key is an error that lists the known ones.
Entries may be given as "module:attribute" strings and are
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

    def config_class(self):
        """The factory's typed config (a PartConfig dataclass), or None when it takes plain keywords."""
        from kgtool.core.configs import PartConfig

        config = getattr(self.factory(), "Config", None)
        return config if isinstance(config, type) and issubclass(config, PartConfig) else None

    def config_keys(self) -> list[str] | None:
        """The settings the factory takes (None when it takes any keyword)."""
        config = self.config_class()
        if config is not None:
            return [s.name for s in config.describe()]
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
            from kgtool.core.suggest import did_you_mean

            raise ConfigError(f"unknown {self.kind} {name!r}{did_you_mean(name, self.names())}; "
                              f"registered: {', '.join(self.names()) or 'none'}") from None

    def settings(self, name: str) -> list:
        """The settings of part `name` (kgtool.core.configs.SettingInfo: name, type, default, doc)."""
        from kgtool.core.configs import SettingInfo

        entry = self.entry(name)
        typed = entry.config_class()
        if typed is not None:
            return typed.describe()
        params = inspect.signature(entry.factory()).parameters.values()
        return [SettingInfo(p.name, getattr(p.annotation, "__name__", str(p.annotation)),
                            p.default, "") for p in params
                if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is not p.empty]

    def get(self, name: str) -> Callable[..., Any]:
        return self.entry(name).factory()

    def create(self, name: str, *args: Any, **config: Any) -> Any:
        """Build the part `name` from its config; unknown config keys are an error."""
        return self.create_with(name, config, *args)

    def create_with(self, name: str, config: dict, *args: Any, settings=None) -> Any:
        """Build the part `name` from `config`; `settings` (kgtool.config.Settings) fills only the settings
        the part's Config maps to a global one (Config.GLOBALS), so its own defaults apply otherwise."""
        entry = self.entry(name)
        typed = entry.config_class()
        if typed is not None:
            return entry.factory()(*args, typed.build(name, config, settings, kind=self.kind))
        keys = entry.config_keys()
        if keys is not None:
            unknown = sorted(set(config) - set(keys))
            if unknown:
                from kgtool.core.suggest import did_you_mean

                raise ConfigError(f"{self.kind} {name!r} has no setting {', '.join(unknown)}"
                                  f"{did_you_mean(unknown[0], keys)}; "
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
