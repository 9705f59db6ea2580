"""Degrade, do not abort: an LLM role whose replies stay unusable hands that step to its offline role.

Every LLM role is wrapped in `WithFallback`: a call that ends in
`UnusableReplyError` (the client already re-asked once) is answered by the
offline counterpart of the same role, for that call only, and metered on the
run (`role_fallbacks`). The offline agents are built on the first fallback
of an answer, over the answer's own graph view (bound to its session by the
runner), so an answer that never falls back loads nothing for them. With
`llm_fallback = "none"` the error propagates and the run fails with it.
"""
from __future__ import annotations

import dataclasses
import logging
import threading
from typing import Any, Callable

from kgtool.models.llm import UnusableReplyError

log = logging.getLogger(__name__)


class OfflineBackup:
    """The offline agents of one answer, built on first need."""

    def __init__(self, services, scope, memo: dict | None, view):
        self.services, self.scope, self.memo, self.view = services, scope, memo, view
        self._set = None
        self._roles: dict = {}
        self._lock = threading.Lock()

    @property
    def agents(self):
        with self._lock:
            if self._set is None:
                from kgtool.reason.agents.base import AgentSet
                from kgtool.reason.agents.offline import Thresholds, build_offline_agents

                built = build_offline_agents(self.view, self.services.matcher,
                                             thresholds=Thresholds.from_settings(self.services.settings))
                self._set = AgentSet("offline", built.planner, built.selector, built.critic, built.generator,
                                     view=self.view)
            return self._set

    def role(self, env, name: str):
        """The offline role `name`, built from the answer's RoleEnv with the offline agent family."""
        offline_env = dataclasses.replace(env, agents=self.agents, built=self._roles)
        return offline_env.role(name)


class WithFallback:
    """An LLM role whose unusable replies are answered by its offline counterpart, one call at a time."""

    def __init__(self, primary: Any, backup: Callable[[], Any], role: str, client):
        self._primary = primary
        self._backup = backup
        self._role = role
        self._client = client

    def __getattr__(self, name: str):
        attr = getattr(self._primary, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):
            try:
                return attr(*args, **kwargs)
            except UnusableReplyError as exc:
                log.info("%s: unusable LLM replies (%s); the offline %s does this step", self._role, exc.problem,
                         self._role)
                self._client.count_role_fallback(exc.role or self._role)
                return getattr(self._backup(), name)(*args, **kwargs)

        return call


def fallback_enabled(services) -> bool:
    return str(getattr(services.settings, "llm_fallback", "offline")).lower() != "none"


def wrap_role(env, name: str, primary: Any) -> Any:
    """`primary` (the LLM role `name` of this answer) backed by the offline role of the same name."""
    backup: OfflineBackup | None = getattr(env.agents, "backup", None)
    if backup is None or not fallback_enabled(env.services):
        return primary
    return WithFallback(primary, lambda: backup.role(env, name), name, env.services.llm_client)


def _lazy_role(module: str, attr: str, name: str):
    def factory(env):
        import importlib

        primary = getattr(importlib.import_module(module), attr)(env)
        return wrap_role(env, name, primary)

    factory.__name__ = f"llm_{name}"
    return factory


# the LLM roles of the methods, each backed by its offline role (registered in factory.ROLES)
vog_planner = _lazy_role("kgtool.reason.agents.llm_vog", "planner", "vog_planner")
vog_retriever = _lazy_role("kgtool.reason.agents.llm_vog", "retriever", "vog_retriever")
vog_verifier = _lazy_role("kgtool.reason.agents.llm_vog", "verifier", "vog_verifier")
vog_reviser = _lazy_role("kgtool.reason.agents.llm_vog", "reviser", "vog_reviser")
c2rag_planner = _lazy_role("kgtool.reason.agents.llm_c2rag", "LLMConstraintPlanner", "c2rag_planner")
c2rag_reader = _lazy_role("kgtool.reason.agents.llm_c2rag", "LLMReader", "c2rag_reader")
safe_generator = _lazy_role("kgtool.reason.agents.llm_safe", "llm_generator", "safe_generator")
safe_feedback = _lazy_role("kgtool.reason.agents.llm_safe", "llm_feedback", "safe_feedback")
reagent_decomposer = _lazy_role("kgtool.reason.agents.llm_reagent", "decomposer", "reagent_decomposer")
reagent_verifier = _lazy_role("kgtool.reason.agents.llm_reagent", "verifier", "reagent_verifier")
reagent_assembler = _lazy_role("kgtool.reason.agents.llm_reagent", "assembler", "reagent_assembler")
reagent_supervisor = _lazy_role("kgtool.reason.agents.llm_reagent", "supervisor", "reagent_supervisor")
reagent_controller = _lazy_role("kgtool.reason.agents.llm_reagent", "controller", "reagent_controller")
