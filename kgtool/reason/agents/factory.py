"""Build an agent family (`offline` or `llm`) for one answer."""
from __future__ import annotations

from kgtool.errors import ConfigError
from kgtool.reason.care import AgentSet


def build_agents(kind: str, kg, scope, memo: dict | None = None) -> AgentSet:
    if kind == "offline":
        from kgtool.reason.agents.offline import build_offline_agents
        from kgtool.reason.graphview import GraphView

        view = GraphView(kg.db, kg.catalog, scope, memo)
        agents = build_offline_agents(view, kg.matcher)
        return AgentSet("offline", agents.planner, agents.selector, agents.critic, agents.generator, view=view)
    if kind == "llm":
        from kgtool.reason.agents.llm import LLMCritic, LLMGenerator, LLMPlanner, LLMSelector

        client = kg.llm_client
        return AgentSet("llm", LLMPlanner(client), LLMSelector(client), LLMCritic(client), LLMGenerator(client),
                        usage_source=client)
    raise ConfigError(f"unknown agents {kind!r}; use 'offline' or 'llm'")
