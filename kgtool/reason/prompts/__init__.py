"""Prompts of the LLM agents, one module per method, each with validators for its outputs.

Every system prompt starts with a stable first line `ROLE: <role>` (see
`care.ROLES`) so logs, caches and test stubs can tell the agent roles apart.
"""
from kgtool.reason.prompts.care import ROLES, PromptSpec, role_of

__all__ = ["ROLES", "PromptSpec", "role_of"]
