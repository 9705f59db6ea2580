"""VoG's state in the graph: plan versions, revisions with their bandit statistics, verification notes."""
from __future__ import annotations

from kgtool.reason.context import RunContext
from kgtool.reason.trace import new_id
from kgtool.reason.trace_sections import TraceSection, html_table, num


class VogRecorder:
    """Write and read one VoG run's plan versions and revisions inside the answer's session."""

    def __init__(self, ctx: RunContext):
        self.ctx = ctx

    def _run(self, name: str, **params) -> list[dict]:
        return self.ctx.db.run_in(self.ctx.session, name, run_id=self.ctx.run_id, **params)

    def plan(self, plan, *, version: int, parent: int | None, arm: str | None, reason: str) -> None:
        """Store plan version `version` (derived from `parent` by `arm`; None for the first plan)."""
        self._run("vog/record_plan", plan_id=new_id("plan"), version=version, parent_version=parent, arm=arm,
                  reason=reason[:500], topic=plan.topic, topic_id=plan.topic_id, answer=plan.final_answer(),
                  thoughts=[s.thought for s in plan.steps], actions=[s.action for s in plan.steps],
                  relations=[s.relation or "" for s in plan.steps],
                  directions=[s.direction or "" for s in plan.steps],
                  expected=[s.expected or "" for s in plan.steps])

    def verification(self, *, verdict_id: str, step_id: str, version: int, check, observation) -> None:
        """Annotate a stored verdict with the verifier's confidence, checks and the step's retrieval width."""
        self._run("vog/annotate_verification", verdict_id=verdict_id, step_id=step_id, plan_version=version,
                  confidence=float(check.confidence), repeated=bool(check.repeated),
                  revised_observation=check.revised_observation,
                  checks={f"check_{k}": float(v) for k, v in check.checks.items()}, width=observation.width,
                  relation_entropy=float(observation.entropy), relations=len(observation.relations),
                  selected=[f"{o.label} ({o.direction})" for o in observation.selected])

    def revision(self, revision: dict, *, from_version: int, to_version: int, failed_step_id: str,
                 revised_step_id: str | None, first_new_step_id: str | None, reason: str) -> None:
        """One revision of a failed step (its bandit choice, reward and the plan versions it joins)."""
        self._run("vog/record_revision", revision_id=new_id("revision"), revision=revision,
                  from_version=from_version, to_version=to_version, failed_step_id=failed_step_id,
                  revised_step_id=revised_step_id, chain_end_step_id=failed_step_id,
                  first_new_step_id=first_new_step_id, reason=reason[:500])

    def arm_stats(self, window: int) -> list[dict]:
        """Per arm: revisions so far (n), mean reward and recent choices, from this run's stored revisions."""
        return self._run("vog/arm_stats", window=window)

    def feedback(self, max_hop: int, per_step: int = 3) -> list[dict]:
        """The stored steps' observations up to `max_hop` (the global context scope)."""
        return self._run("vog/feedback", max_hop=max_hop, per_step=per_step)


# ---------------------------------------------------------------------- what its trace shows
def plan_lines(plans: list[dict]) -> list[str]:
    lines = []
    for p in plans:
        origin = "" if p.get("parent_version") is None else ", from v" + str(p["parent_version"])
        lines.append(f"plan v{p['version']} ({p.get('arm') or 'draft'}{origin}): "
                     + " -> ".join(f"{a} [{r or '?'}: {e or '?'}]" for a, r, e in
                                   zip(p["actions"] or [], p["relations"] or [], p["expected"] or [])))
    return lines


def plan_table(plans: list[dict]) -> str:
    if not plans:
        return ""
    rows = []
    for p in plans:
        steps = " → ".join(f"{a} [{r or '?'}: {e or '?'}]" for a, r, e in
                           zip(p.get("actions") or [], p.get("relations") or [], p.get("expected") or []))
        checks = "; ".join(("ok" if v.get("valid") else f"failed hop {v.get('failed_hop')} ({v.get('error_type')})")
                           + f" {num(v.get('confidence'))}" for v in p.get("verifications") or [])
        rows.append(("data-plan-version", p.get("version"),
                     [num(p.get("version")), num(p.get("parent_version")), p.get("arm") or "draft", steps,
                      p.get("answer") or "—", checks, p.get("reason")]))
    return html_table("plans", "Plan versions", ("version", "from", "arm", "steps", "predicted answer", "checks",
                                                 "why"), rows)


PLANS = TraceSection("plans", "Plan versions", "vog/plans", plan_lines, plan_table)
