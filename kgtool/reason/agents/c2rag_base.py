"""C2RAG's values and roles: the constraint plan, and what each agent family provides.

A plan is an ordered list of atomic constraint triples (h, r, t) whose ends
are constants (entity names as the question writes them) or typed
placeholders (`?x`), each with m relation variants. Both agent families
produce it (offline from the graph path the offline planner finds, llm from
the paper's planner prompt); the loop in kgtool.reason.methods.c2rag grounds
it against the graph and, where the graph is not sufficient, against text.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from kgtool.core.types import PassageHit

_VAR = re.compile(r"^\?[A-Za-z_][\w-]*$")


def is_variable(term: str | None) -> bool:
    return bool(term) and bool(_VAR.match(term.strip()))


@dataclass
class Constraint:
    """One atomic constraint (head, relation, tail) of a plan."""

    index: int
    head: str
    relation: str
    tail: str
    variants: list[str] = field(default_factory=list)  # m phrasings of the relation (the relation first)
    types: dict[str, str] = field(default_factory=dict)  # placeholder -> type ("person", "country", ...)
    relation_key: str | None = None  # the graph relation, when the planner read it off the graph
    id: str = ""

    @property
    def variables(self) -> list[str]:
        return [t for t in (self.head, self.tail) if is_variable(t)]

    @property
    def pattern(self) -> str:
        return linearize(self)

    def as_row(self, target: str | None) -> dict:
        return {"id": self.id, "index": self.index, "head": self.head, "relation": self.relation,
                "tail": self.tail, "variants": list(self.variants), "variables": self.variables,
                "types": [self.types.get(v, "") for v in self.variables], "target": target,
                "pattern": self.pattern}


@dataclass
class ConstraintPlan:
    constraints: list[Constraint]
    target: str | None  # the placeholder whose binding answers the question

    def variables(self) -> list[str]:
        return list(dict.fromkeys(v for c in self.constraints for v in c.variables))


def linearize(c: Constraint, names: dict[str, str] | None = None) -> str:
    """Lin(tau): the constraint as text; bound placeholders read as their binding's name."""
    def term(t: str) -> str:
        if is_variable(t):
            if names and names.get(t):
                return names[t]
            kind = c.types.get(t)
            return f"{t} ({kind})" if kind else t
        return t

    return f"({term(c.head)}, {c.relation}, {term(c.tail)})"


@dataclass
class Block:
    """One constraint's evidence for the final answer: B_i = [Lin(tau_i), T_i]."""

    constraint: str  # linearized, bindings filled in
    state: str  # resolved | recovered | unresolved | failed
    binding: str | None  # the value bound to the constraint's unknown (best first)
    evidence: list[str]


class ConstraintPlanner(Protocol):
    def plan(self, question: str, variants: int) -> ConstraintPlan: ...


class Reranker(Protocol):
    """The contextual reranker z(q || Lin(tau) || Lin(c)); `name` is stored as the score's name."""

    name: str

    def score(self, question: str, constraint_text: str, variants: Sequence[str], candidates: Sequence) -> list[float]:
        ...


class Reader(Protocol):
    """Textual recovery and the final answer."""

    def recover(self, question: str, constraint: Constraint, constraint_text: str, known: Sequence[str],
                passages: Sequence[PassageHit]) -> tuple[str | None, str | None]:
        """(answer, id of the passage it came from) for the constraint's unknown, or (None, None)."""
        ...

    def answer(self, question: str, blocks: Sequence[Block], target_binding: str | None) -> str | None: ...
