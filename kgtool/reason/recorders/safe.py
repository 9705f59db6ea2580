"""SAFE's state in the graph: attempts at a step, their statements, retries and the facts feedback rejected."""
from __future__ import annotations

from kgtool.reason import steps
from kgtool.reason.agents.safe_base import StepView
from kgtool.reason.context import RunContext


class SafeRecorder:
    """Write and read one SAFE run's attempts inside the answer's session."""

    def __init__(self, ctx: RunContext):
        self.ctx = ctx

    def _run(self, name: str, **params) -> list[dict]:
        return self.ctx.db.run_in(self.ctx.session, name, **params)

    def rejected_facts(self, hop: int) -> set[str]:
        """The facts chosen by attempts at step `hop` whose verdict rejected them."""
        return {r["fact_id"] for r in self._run("safe/rejected_facts", run_id=self.ctx.run_id, hop=hop)}

    def statement(self, step_id: str, statement: str | None, evidence: str | None) -> None:
        """The statement and evidence of an attempt that cites no stored fact."""
        self._run("safe/set_step_evidence", step_id=step_id, statement=statement, evidence=evidence)

    def retry(self, old_step_id: str, new_step_id: str, *, kind: str, reason: str) -> None:
        """Link a rejected attempt to its retry (the feedback as the reason), discarding its choice."""
        self._run("safe/link_retry", old_step_id=old_step_id, new_step_id=new_step_id, kind=kind,
                  reason=reason[:500])

    def attempt(self, step_id: str) -> StepView:
        """An attempt as stored (what the feedback model judges)."""
        (r,) = self._run("safe/trajectory", step_ids=[step_id])
        return StepView(r["step_id"], r["kind"], r["hop"], r["query"], r["entity_id"], r["entity"] or "",
                        r["answer_id"], r["answer"], steps.fact_of_row(r), r["evidence"] or "", r["generated"],
                        r["attempt"], r["neff"], r["state"] or "")
