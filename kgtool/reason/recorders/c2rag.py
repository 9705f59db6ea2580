"""C2RAG's state in the graph: the run's constraints, their anchors, N_eff, bindings and steps."""
from __future__ import annotations

from kgtool.reason.context import RunContext
from kgtool.reason.trace_sections import TraceSection, html_table, num


class C2ragRecorder:
    """Write and read one C2RAG run's constraints inside the answer's session.

    The constraints' writes, the recovery links and the run's verdicts before the last are read
    by nothing while the run goes on (only by its trace afterwards): they wait for the trace's
    next statement and go in its transaction (TraceRecorder.defer), one commit instead of one
    each. Its reads go through the trace too, so they see every write before them.
    """

    def __init__(self, ctx: RunContext):
        self.ctx = ctx

    def _run(self, name: str, **params) -> list[dict]:
        return self.ctx.trace._run(name, **params)

    def create(self, rows: list[dict]) -> None:
        """The plan's constraints as Constraint nodes of the run (rows as `Constraint.as_row` gives them)."""
        self.ctx.trace.defer_verdicts = True  # the run's verdicts wait with its other writes (see above)
        if rows:
            self.ctx.trace.defer("c2rag/create_constraints", run_id=self.ctx.run_id, constraints=rows)

    def update(self, rows: list[dict]) -> None:
        """Per constraint: {id, props, steps (step links with their phase), binds (entities, or None)}."""
        if rows:
            self.ctx.trace.defer("c2rag/update_constraints", run_id=self.ctx.run_id, rows=rows)

    def checked(self, step_id: str) -> dict:
        """A checked constraint's step read back: state, neff, gamma and its candidates with p, best first."""
        return self._run("c2rag/step_candidates", step_id=step_id)[0]

    def recovery(self, old_step_id: str, new_step_id: str, reason: str) -> None:
        """Link a constraint's structural step to the textual recovery that replaced it."""
        self.ctx.trace.defer("c2rag/link_recovery", old_step_id=old_step_id, new_step_id=new_step_id,
                             kind="fallback", reason=reason)

    def fact_texts(self, fact_ids: list[str]) -> list[str]:
        """The facts as text: their source passages, else their evidence sentences (distinct, in order)."""
        rows = self._run("c2rag/fact_passages", fact_ids=fact_ids)
        return list(dict.fromkeys(r["text"] for r in rows if r["text"]))


# ---------------------------------------------------------------------- what its trace shows
def constraint_lines(constraints: list[dict]) -> list[str]:
    lines = []
    for k in constraints:
        binding = ", ".join(f"{b} ({w:.2f})" for b, w in zip(k.get("binding") or [], k.get("binding_weights") or []))
        neff = "-" if k.get("neff") is None else f"{k['neff']:.3f}"
        lines.append(f"constraint {k['index'] + 1}: {k['pattern']}  variants: {'; '.join(k.get('variants') or [])}  "
                     f"anchors: {', '.join(k.get('anchors') or []) or '-'}  {k['state']}"
                     f"{' (' + k['source'] + ')' if k.get('source') else ''} N_eff={neff}  "
                     f"{k.get('variable') or ''} = {binding or '-'}")
    return lines


def constraint_table(constraints: list[dict]) -> str:
    if not constraints:
        return ""
    rows = []
    for k in constraints:
        binding = ", ".join(f"{b} ({num(w)})" for b, w in zip(k.get("binding") or [], k.get("binding_weights") or []))
        rows.append(("data-constraint", k.get("id"),
                     [num(k.get("index")), k.get("pattern"), "; ".join(k.get("variants") or []),
                      ", ".join(k.get("anchors") or []), k.get("state"), k.get("source") or "—", num(k.get("neff")),
                      binding or "—", ", ".join(f"{s.get('phase')}: {s.get('state')}" for s in k.get("steps") or [])]))
    return html_table("constraints", "Constraints", ("#", "constraint", "relation variants", "anchors", "state",
                                                     "source", "N_eff", "binding", "steps"), rows)


CONSTRAINTS = TraceSection("constraints", "Constraints", "c2rag/run_constraints", constraint_lines, constraint_table)
