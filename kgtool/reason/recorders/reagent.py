"""ReAgent's ledger in the graph: the assertion set Phi^t, checkpoints, rollbacks and messages.

The agents' assertions, messages and checkpoints are buffered and written in
one statement whenever the loop next reads the ledger (conflicts, claims, a
rollback) or ends; conflicts are found in Cypher over the run's assertions and
the graph (kgtool/cypher/reagent/record.cypher).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kgtool.core.types import CandidateFact
from kgtool.reason.agents.reagent_base import Claim, Conflict
from kgtool.reason.context import RunContext
from kgtool.reason.trace import new_id, packed
from kgtool.reason.subquestions import in_label_words
from kgtool.reason.trace_sections import TraceSection, html_table, num


@dataclass
class ReagentLedger:
    """One answer's time step and the rows not yet written (written by `flush`, one statement).

    Assertions, messages and checkpoints wait here until the loop next reads
    the ledger (conflicts, claims, a rollback) or ends: every read flushes
    first, so what it sees is what the agents said, in one round trip instead
    of one per assertion or checkpoint. A checkpoint written late holds the
    same assertions: those accepted at its time step, and only a rollback,
    which flushes first, ever retracts one.
    """

    ctx: RunContext
    t: int = 0
    assertions: list[dict] = field(default_factory=list)
    messages: list[dict] = field(default_factory=list)
    pending_checkpoints: list[dict] = field(default_factory=list)
    checkpoints: list[tuple[int, str, str]] = field(default_factory=list)  # global: (t, id, label)
    local: dict[str, str] = field(default_factory=dict)  # agent -> its last checkpoint id
    rounds: int = 0

    def tick(self) -> int:
        self.t += 1
        return self.t

    def claim(self, agent: str, kind: str, *, hop: int | None = None, slot: str | None = None,
              value: str | None = None, value_id: str | None = None, text: str = "",
              evidence: CandidateFact | None = None, step_id: str | None = None) -> str:
        claim_id = new_id("assert")
        self.assertions.append({
            "id": claim_id, "t": self.tick(), "agent": agent, "kind": kind, "hop": hop, "slot": slot, "value": value,
            "value_id": value_id, "text": text[:500], "step_id": step_id,
            "evidence_id": evidence.id if evidence is not None else None,
            "evidence_kind": evidence.kind if evidence is not None else None})
        return claim_id

    def say(self, type_: str, sender: str, receiver: str, content: str, about: str | None = None) -> None:
        self.messages.append({"id": new_id("msg"), "t": self.tick(), "type": type_, "sender": sender,
                              "receiver": receiver, "content": content[:500], "assertion_id": about})

    def flush(self, *, conflicts: bool = False) -> list[dict]:
        """Write what is pending; with `conflicts`, also read the conflicts that now hold (same statement)."""
        if not (conflicts or self.assertions or self.messages or self.pending_checkpoints):
            return []
        rows = self.ctx.db.run_in(self.ctx.session, "reagent/record", **packed("reagent/record", dict(
            run_id=self.ctx.run_id, assertions=self.assertions, messages=self.messages,
            checkpoints=self.pending_checkpoints, with_conflicts=conflicts, **self.ctx.scope.params())))
        self.assertions, self.messages, self.pending_checkpoints = [], [], []
        return rows[0]["conflicts"] if rows else []

    def checkpoint(self, label: str, agent: str | None = None) -> str:
        checkpoint_id = new_id("checkpoint")
        t = self.tick()
        self.pending_checkpoints.append({"id": checkpoint_id, "t": t, "agent": agent, "label": label})
        if agent is None:
            self.checkpoints.append((t, checkpoint_id, label))
        else:
            self.local[agent] = checkpoint_id
        return checkpoint_id

    def conflicts(self) -> list[Conflict]:
        return [Conflict.from_row(r) for r in self.flush(conflicts=True)]

    def claims(self) -> list[Claim]:
        self.flush()
        return [Claim.from_row(r) for r in self.ctx.db.run_in(self.ctx.session, "reagent/assertions",
                                                              run_id=self.ctx.run_id)]

    def rollback(self, *, kind: str, checkpoint_id: str, conflict: Conflict | None, reason: str,
                 agent: str | None = None, conflict_ids: list[str] | None = None) -> list[dict]:
        """Retract what came after the checkpoint (one agent's assertions, or everyone's); the retracted rows."""
        self.flush()
        rows = self.ctx.db.run_in(self.ctx.session, "reagent/rollback", **packed("reagent/rollback", dict(
            run_id=self.ctx.run_id, rollback_id=new_id("rollback"), kind=kind, agent=agent, t=self.tick(),
            checkpoint_id=checkpoint_id,
            conflict_ids=conflict_ids if conflict_ids is not None else (conflict.assertion_ids if conflict else []),
            conflict_kind=conflict.kind if conflict else None, reason=reason[:500])))
        return rows[0]["retracted"] if rows else []

    def support(self, fact_ids: list[str]) -> dict[str, int]:
        """Per fact id: how many sources stand behind it (the controller's override weighs branches by it)."""
        if not fact_ids:
            return {}
        return {r["id"]: r["support"] for r in self.ctx.db.run_in(self.ctx.session, "reagent/support", ids=fact_ids)}

    def checkpoint_before(self, t: int) -> tuple[int, str, str]:
        """The last global checkpoint taken before time step t."""
        before = [c for c in self.checkpoints if c[0] < t]
        return before[-1] if before else self.checkpoints[0]


class Claims(Sequence):
    """The ledger's assertions (those `keep` accepts), read from the graph on first use: an agent that
    never looks at them (the offline verifier and supervisor) costs no round trip."""

    def __init__(self, ledger: ReagentLedger, keep=lambda claim: True):
        self._ledger = ledger
        self._keep = keep
        self._claims: list[Claim] | None = None

    def _read(self) -> list[Claim]:
        if self._claims is None:
            self._claims = [c for c in self._ledger.claims() if self._keep(c)]
        return self._claims

    def __getitem__(self, index):
        return self._read()[index]

    def __len__(self) -> int:
        return len(self._read())


# ---------------------------------------------------------------------- what its trace shows
def assertion_lines(rows: list[dict]) -> list[str]:
    return [f"assertion t={a['t']} {a['agent']} {a['kind']}"
            f"{' hop ' + str(a['hop']) if a.get('hop') is not None else ''}: "
            f"{in_label_words(a.get('text') or a.get('value')) or ''}"
            f"  [{a['status']}{', rolled back by ' + a['rollback_id'] if a.get('rollback_id') else ''}]"
            for a in rows]


def assertion_table(rows: list[dict]) -> str:
    if not rows:
        return ""
    return html_table("assertions", "Assertions", ("t", "agent", "kind", "hop", "slot", "value", "text", "status",
                                                   "rolled back by"),
                      [("data-assertion", a.get("id"),
                        [num(a.get("t")), a.get("agent"), a.get("kind"), num(a.get("hop")), a.get("slot") or "—",
                         a.get("value") or "—", a.get("text"), a.get("status"), a.get("rollback_id") or "—"])
                       for a in rows])


def rollback_lines(rows: list[dict]) -> list[str]:
    return [f"rollback t={r['t']} {r['kind']}{' (' + r['agent'] + ')' if r.get('agent') else ''} to "
            f"{r.get('checkpoint') or '?'} (t={r.get('to_t')}): {r.get('retracted', 0)} retracted; "
            f"{r.get('conflict_kind') or 'no conflict'}: {r.get('reason') or ''}" for r in rows]


def rollback_table(rows: list[dict]) -> str:
    if not rows:
        return ""
    return html_table("rollbacks", "Rollbacks", ("t", "kind", "agent", "to checkpoint", "conflict", "conflict set",
                                                 "retracted", "reason"),
                      [("data-rollback", r.get("id"),
                        [num(r.get("t")), r.get("kind"), r.get("agent") or "all",
                         f"{r.get('checkpoint') or '?'} (t={num(r.get('to_t'))})", r.get("conflict_kind") or "—",
                         num(r.get("conflict_set")), num(r.get("retracted")), r.get("reason")])
                       for r in rows])


def message_lines(rows: list[dict]) -> list[str]:
    return [f"message t={m['t']} {m['type']} {m['sender']} -> {m['receiver']}: {m.get('content') or ''}"
            for m in rows]


def message_table(rows: list[dict]) -> str:
    if not rows:
        return ""
    return html_table("messages", "Messages", ("t", "type", "from", "to", "content"),
                      [("data-message", m.get("id"),
                        [num(m.get("t")), m.get("type"), m.get("sender"), m.get("receiver"), m.get("content")])
                       for m in rows])


SECTIONS = (
    TraceSection("assertions", "Assertions", "reagent/assertions", assertion_lines, assertion_table),
    TraceSection("rollbacks", "Rollbacks", "reagent/rollbacks", rollback_lines, rollback_table),
    TraceSection("messages", "Messages", "reagent/messages", message_lines, message_table),
)
