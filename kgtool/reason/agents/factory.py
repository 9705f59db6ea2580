"""The agent families (`offline`, `llm`), registered by name.

A family's factory builds the roles for one answer from the KnowledgeGraph's
shared models, the answer's scope and its pool memo; config keys are the
factory's keyword arguments.
"""
from __future__ import annotations

from kgtool.core.registry import Registry
from kgtool.reason.agents.base import AgentSet

AGENTS = Registry("agent family")
# Roles beyond CARE's four that a method asks for with RunContext.role(name), one entry per
# family: "<family>.<role>" -> factory(ctx). Register lazily ("module:attr") so listing imports nothing.
ROLES = Registry("agent role")


@AGENTS.register("offline", description="no LLM: graph-guided relation-path planning, MiniLM relation matching, "
                                        "structural checks")
def offline_agents(kg, scope, memo: dict | None = None) -> AgentSet:
    from kgtool.reason.agents.offline import Thresholds, build_offline_agents
    from kgtool.reason.graphview import GraphView

    view = GraphView(kg.db, kg.catalog, scope, memo)
    agents = build_offline_agents(view, kg.matcher, thresholds=Thresholds.from_settings(kg.settings))
    return AgentSet("offline", agents.planner, agents.selector, agents.critic, agents.generator, view=view)


@AGENTS.register("llm", description="any OpenAI-compatible endpoint: the papers' role prompts, JSON validated, "
                                    "cached, metered")
def llm_agents(kg, scope, memo: dict | None = None) -> AgentSet:
    from kgtool.reason.agents.llm import (
        LLMCritic,
        LLMGenerator,
        LLMPlanner,
        LLMSelector,
    )

    client = kg.llm_client
    return AgentSet("llm", LLMPlanner(client), LLMSelector(client), LLMCritic(client), LLMGenerator(client),
                    usage_source=client)
