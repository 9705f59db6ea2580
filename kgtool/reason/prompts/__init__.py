"""Prompts of the LLM agents, one module per method, each with the reply schemas and validators of its roles.

Every system prompt starts with a stable first line `ROLE: <role>` so logs,
caches and test stubs can tell the agent roles apart. `spec` holds what both
the prompt modules and the agents use (PromptSpec, the schema pieces).
"""
from kgtool.reason.prompts.care import ROLES
from kgtool.reason.prompts.spec import PromptSpec, role_of

__all__ = ["ROLES", "PromptSpec", "role_of"]
