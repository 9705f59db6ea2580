"""What ReAgent's roles exchange, for both agent families.

The loop (kgtool.reason.methods.reagent) stores every assertion, checkpoint,
rollback and message in Neo4j; the roles see plain values read back from
there: `Claim` (an assertion), `Conflict` (a minimal conflict set found by
kgtool/cypher/reagent/record.cypher), and give back an `Assembly` (the
answer assembler), a `Decision` (the supervisor) or an `Intervention` (the
controller).
"""
from __future__ import annotations

from dataclasses import dataclass, field

INTERVENTIONS = ("challenge", "override", "disclaim", "none")


@dataclass
class Claim:
    """One assertion of one agent at time step t, as stored (kgtool/cypher/reagent/assertions.cypher)."""

    id: str
    t: int
    agent: str
    kind: str  # subquestion | fact | partial_answer | binding | gap | final_answer
    hop: int | None = None
    slot: str | None = None
    value: str | None = None
    value_id: str | None = None
    text: str = ""
    status: str = "accepted"
    evidence_id: str | None = None
    step_id: str | None = None

    @classmethod
    def from_row(cls, row: dict) -> "Claim":
        return cls(row["id"], row["t"], row["agent"], row["kind"], row.get("hop"), row.get("slot"), row.get("value"),
                   row.get("value_id"), row.get("text") or "", row.get("status") or "accepted",
                   row.get("evidence_id"), row.get("step_id"))


@dataclass
class Conflict:
    """A minimal conflict set: these assertions cannot all hold; the culprit is given up first."""

    kind: str  # a ReagentError value
    assertion_ids: list[str]
    culprit_id: str
    culprit_t: int
    detail: str = ""
    slot: str | None = None
    hop: int | None = None

    @classmethod
    def from_row(cls, row: dict) -> "Conflict":
        return cls(row["kind"], list(row["assertion_ids"]), row["culprit_id"], row["culprit_t"], row.get("detail") or "",
                   row.get("slot"), row.get("hop"))


@dataclass
class Assembly:
    """The answer assembler's result: the answer, or an escalation to the supervisor with its reason."""

    answer: str | None
    escalation: str | None = None  # None: nothing to escalate
    error_type: str | None = None  # a ReagentError value when escalating
    failed_hop: int | None = None
    notes: list[str] = field(default_factory=list)
    # the escalation is a leftover a challenge may confirm (no better reading found: answered),
    # not a gap in the reasoning (then the controller overrides or disclaims)
    minor: bool = False

    @property
    def ok(self) -> bool:
        return self.escalation is None and self.answer is not None


@dataclass
class Decision:
    """The supervisor's answer to an escalation: roll back to before `conflict.culprit_id`, or not."""

    rollback: bool
    conflict: Conflict | None = None
    summary: str = ""


@dataclass
class Intervention:
    """The controller's move after repeated conflicts: challenge, override, disclaim (or none)."""

    kind: str
    target: str = ""
    rationale: str = ""

    def __post_init__(self):
        if self.kind not in INTERVENTIONS:
            raise ValueError(f"intervention must be one of {', '.join(INTERVENTIONS)}, got {self.kind!r}")
