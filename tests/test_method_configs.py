"""Typed method configs: built and checked by the registry, global settings only where a method maps them.

No server needed: building a method reads no graph. The stored Run config of
every method is checked against a real server in tests/test_cli_newcomer.py.
"""
from __future__ import annotations

import dataclasses

import pytest

from kgtool.config import Settings
from kgtool.errors import ConfigError
from kgtool.reason.methods import METHODS
from kgtool.reason.runner import build_method


class _Graph:
    """What build_method reads of a KnowledgeGraph: its methods and its settings."""

    def __init__(self, settings: Settings):
        self.methods = METHODS.copy()
        self.settings = settings


@pytest.mark.parametrize("name", METHODS.names())
def test_every_method_declares_a_frozen_documented_config(name):
    config = METHODS.entry(name).config_class()
    assert config is not None and dataclasses.is_dataclass(config), name
    assert config.__dataclass_params__.frozen
    settings = METHODS.settings(name)
    assert settings and all(s.doc for s in settings), f"{name}: a setting without a doc"
    built = METHODS.create(name)
    assert built.config() == {s.name: s.default for s in settings}


def test_global_settings_fill_only_what_a_method_maps():
    odd = Settings(top_k=5, gamma=1.0, tau_max=1, max_steps=40)
    graph = _Graph(odd)
    assert build_method(graph, "care", {}).config() == {"top_k": 5, "tau_max": 1, "gamma": 1.0}
    assert build_method(graph, "c2rag", {}).config()["gamma"] == 1.0
    assert build_method(graph, "c2rag", {}).config()["top_k"] == 3
    for name in ("safe", "reagent"):
        assert build_method(graph, name, {}).config()["top_k"] == 3, name
    assert build_method(graph, "reagent", {}).config()["max_steps"] == 25
    assert build_method(graph, "vog", {}).config()["gamma"] == 1.5
    assert build_method(graph, "care", {"top_k": 2}).config()["top_k"] == 2  # given beats global


@pytest.mark.parametrize("name, config, message", [
    ("c2rag", {"top_k": 0}, "top_k must be at least 1"),
    ("bm25-reader", {"passages": 0}, "passages must be at least 1"),
    ("care", {"tau_max": "two"}, "setting tau_max must be int, got 'two'"),
    ("vog", {"arms": ["local"]}, "setting arms must be str"),
    ("safe", {"retries": 2}, "has no setting retries; did you mean 'max_retries'"),
    ("reagent", {"backtrack": "maybe"}, "setting backtrack must be bool"),
])
def test_a_bad_setting_is_a_config_error_naming_the_method_and_its_settings(name, config, message):
    with pytest.raises(ConfigError) as caught:
        METHODS.create(name, **config)
    text = str(caught.value)
    assert message in text and f"method {name!r}" in text and f"kgtool methods {name}" in text, text
    for setting in METHODS.settings(name):
        assert setting.name in text
