"""Typed, documented configs of registered parts (methods first).

A part declares a frozen dataclass of its settings, each with its default
(from its paper) and a one-line doc:

    @dataclass(frozen=True)
    class CareConfig(PartConfig):
        tau_max: int = setting(2, "critic-triggered backtracks per question (CARE: tau_max = 2)")

`CareConfig.build("care", {"tau_max": 1})` checks the names and the
types and says, for a bad one, what the part's settings are. `GLOBALS` maps a
setting to the global setting (kgtool.config.Settings) that fills it when it is
not given; a setting not listed there keeps its own default whatever the
global settings say.
"""
from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar

from kgtool.core.suggest import did_you_mean
from kgtool.errors import ConfigError


def setting(default, doc: str):
    """A config field: its default and what it does (shown by `kgtool methods NAME`)."""
    return field(default=default, metadata={"doc": doc})


@dataclass(frozen=True)
class SettingInfo:
    name: str
    type_name: str
    default: Any
    doc: str
    global_setting: str | None = None


@dataclass(frozen=True)
class PartConfig:
    """Base of every part's config: validation and description come from the fields."""

    # setting name -> name of the kgtool.config.Settings field that fills it when it is not given
    GLOBALS: ClassVar[dict[str, str]] = {}

    def __post_init__(self):
        self.check()

    def check(self) -> None:
        """Raise ConfigError for values of the right type that the part cannot use (a subclass says which)."""

    @classmethod
    def describe(cls) -> list[SettingInfo]:
        hints = typing.get_type_hints(cls)
        return [SettingInfo(f.name, _type_name(hints[f.name]), f.default, f.metadata.get("doc", ""),
                            cls.GLOBALS.get(f.name)) for f in dataclasses.fields(cls)]

    @classmethod
    def build(cls, name: str, values: dict | None = None, settings=None, *, kind: str = "method") -> "PartConfig":
        """The config of part `name` from `values` (names and types checked, ConfigError naming the part and
        its settings); `settings` (kgtool.config.Settings) fills the GLOBALS that `values` leaves out."""
        values = dict(values or {})
        owner = f"{kind} {name!r}"
        known = [f.name for f in dataclasses.fields(cls)]
        listing = "; its settings: " + (", ".join(known) or "none")
        if kind == "method":
            listing += f" (see `kgtool methods {name}`)"
        for key in values:
            if key not in known:
                raise ConfigError(f"{owner} has no setting {key}{did_you_mean(key, known)}{listing}")
        if settings is not None:
            for key, global_name in cls.GLOBALS.items():
                if key not in values:
                    values[key] = getattr(settings, global_name)
        hints = typing.get_type_hints(cls)
        for key, value in values.items():
            if not _is_instance(value, hints[key]):
                raise ConfigError(f"{owner}: setting {key} must be {_type_name(hints[key])}, got {value!r}{listing}")
            if hints[key] is float and isinstance(value, int):
                values[key] = float(value)
        try:
            return cls(**values)
        except ConfigError as exc:
            raise ConfigError(f"{owner}: {exc}{listing}") from None

    @classmethod
    def of(cls, name: str, config: "PartConfig | None", values: dict) -> "PartConfig":
        """A constructor's config: the one given, or one built from keyword settings (not both)."""
        if config is None:
            return cls.build(name, values)
        if values or not isinstance(config, cls):
            raise ConfigError(f"{name} takes a {cls.__name__} or keyword settings, not both")
        return config

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def _type_name(hint) -> str:
    if isinstance(hint, type):
        return hint.__name__
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join("none" if a is type(None) else _type_name(a) for a in args)
    return str(hint).replace("typing.", "")


def _is_instance(value, hint) -> bool:
    if hint is typing.Any:
        return True
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_is_instance(value, a) for a in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True
