"""One answer's run context: what a method's steps read and write through.

A method gets a RunContext and composes the shared steps
(kgtool.reason.steps) over it; it never opens sessions, builds agents or
meters tokens itself, so every method runs inside the same session, scope,
trace and budget, and can be compared with the others on equal terms.

A role a method asks for (`RunContext.role`) is built from a RoleEnv: the
graph's typed services and this answer's graph bound to its session, never
the run itself, so no role can write the trace, spend the budget or call a
step behind the method's back.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from kgtool.core.scope import Scope
from kgtool.core.types import CandidateFact, Usage
from kgtool.errors import KgToolError
from kgtool.reason.agents.base import AgentSet
from kgtool.reason.graphview import GraphView
from kgtool.reason.reading.analysis import QuestionAnalysis, bound
from kgtool.reason.services import Services
from kgtool.reason.trace import TraceRecorder
from kgtool.retrieve.hop import HopRetriever


class BudgetExhausted(KgToolError):
    """A run used up its step or model-call budget."""


@dataclass
class Budget:
    """One run's spending: recorded steps (against the run-wide max_steps; None: unlimited), revisions of
    stored steps and agent calls, which a method weighs against limits of its own (kgtool.reason.steps)."""

    max_steps: int | None = None
    steps: int = 0
    revisions: int = 0  # steps opened as revisions of a stored step (reselections), not charged to max_steps
    calls: int = 0  # agent calls a method charged with `steps.agent_call`

    def charge_steps(self, n: int = 1) -> None:
        self.steps += n
        if self.max_steps is not None and self.steps > self.max_steps:
            raise BudgetExhausted(f"the run took more than {self.max_steps} steps")


@dataclass
class HopState:
    """One step of the current chain, as the method holds it (mirrors a stored Step)."""

    step_id: str
    hop: int
    query: str
    entity_id: str | None
    entity: str
    fact: CandidateFact | None
    answer_id: str | None
    answer: str | None
    generated: bool = False
    neff: float | None = None
    state: str = ""

    def as_chain_entry(self) -> dict:
        entry = {"hop": self.hop, "question": self.query, "entity": self.entity, "answer": self.answer,
                 "answer_id": self.answer_id, "generated": self.generated, "neff": self.neff, "state": self.state,
                 "step_id": self.step_id}
        if self.fact:
            entry.update(fact_id=self.fact.fact_id, head=self.fact.head, relation=self.fact.relation,
                         tail=self.fact.tail, evidence=self.fact.evidence)
        return entry


@dataclass
class AnswerGraph:
    """One answer's graph, bound to its session: what a role reads the graph through.

    `view` is the agent family's graph view (bound to the session by the
    runner); a family without one (the llm agents with no offline fallback)
    gets one over the same scope, session and pool memo on first use.
    """

    db: Any
    session: Any
    scope: Scope
    memo: dict
    catalog: Any
    _view: Any = None

    @property
    def view(self):
        if self._view is None:
            self._view = GraphView(self.db, self.catalog, self.scope, self.memo)
            self._view.session = self.session
        return self._view


@dataclass
class RoleEnv:
    """What a role factory is given: the graph's services, this answer's graph and agent family, the
    entity linker, and the other roles of the answer (`role`); not the run's trace, budget or steps."""

    services: Services
    graph: AnswerGraph
    agents: AgentSet
    link: Callable[[str], str | None]
    roles: Any  # the role Registry
    built: dict = field(default_factory=dict)  # "<family>.<role>" -> the role, built once per answer

    def role(self, name: str, family: str | None = None):
        """The agent family's role `name`, built once per answer (the run's family unless `family` names
        another)."""
        key = f"{family or self.agents.kind}.{name}"
        if key not in self.built:
            self.built[key] = self.roles.create(key, self)
        return self.built[key]


@dataclass
class RunContext:
    """Everything one answer's steps share."""

    db: Any
    session: Any
    scope: Scope
    agents: AgentSet
    retriever: HopRetriever
    trace: TraceRecorder
    link: Callable[[str], str | None]  # a name to an Entity id, or None
    gamma: float
    # the graph's shared, lazily loaded models and registries (settings, matcher, embedder, llm_client,
    # scorers, catalog) for the steps and the roles
    services: Services | None = None
    usage: Usage = field(default_factory=Usage)  # this run's model calls, metered in its own thread
    budget: Budget = field(default_factory=Budget)
    memo: dict = field(default_factory=dict)  # entity id -> pool: this answer's neighbourhood reads
    # the role Registry ("<family>.<role>" factories, kgtool.reason.agents.factory.ROLES), given by the runner
    roles: Any = None
    question: str | None = None  # the question as the runner cleaned it
    _env: RoleEnv | None = None
    _analysis: QuestionAnalysis | None = None

    @property
    def run_id(self) -> str:
        return self.trace.run_id or ""

    @property
    def env(self) -> RoleEnv:
        """What this answer's roles are built from (kgtool.reason.agents.factory.ROLES factories)."""
        if self._env is None:
            self._env = RoleEnv(self.services, AnswerGraph(self.db, self.session, self.scope, self.memo,
                                                           self.services.catalog, self.agents.view),
                                self.agents, self.link, self.roles)
        return self._env

    @property
    def analysis(self) -> QuestionAnalysis:
        """The question read once for the whole run (kgtool.reason.reading), its mentions through the
        agent family's graph view."""
        if self._analysis is None:
            self._analysis = bound(self.question, self.agents.view)
        return self._analysis

    def role(self, name: str, family: str | None = None):
        """An agent family's implementation of a method-specific role (e.g. "safe_feedback"), built once per run.

        Roles are registered in `roles` (kgtool.reason.agents.factory.ROLES) as "<family>.<role>"
        (e.g. "offline.safe_feedback"); the factory receives this answer's RoleEnv. The family is the
        run's own unless `family` names another.
        """
        return self.env.role(name, family)
