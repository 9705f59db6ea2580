"""SAFE: atomic steps, each judged by a feedback model with an error type, retried with its feedback.

The inference-time protocol of the SAFE paper (../shared/papers/safe.txt, 3.3
and 4.1): a generator writes one atomic step at a time (cite one fact, infer
one link, or give the final answer); a feedback model labels the step with one
type of the SafeError taxonomy, a diagnosis and guidance. A rejected step is
generated again with that feedback, at most `max_retries` times, after which
the last attempt is kept; at most `atomic_steps` steps; when the guidance says
to answer, or the steps run out, or a step finds nothing to go on with, the
final answer is forced.

Every attempt is a Step in the graph (kind attribution, logical or final, with
the scored facts of its entity and N_eff), every judgement a Verdict in the
SafeError taxonomy, every retry a REVISED_AS / BACKTRACK link whose reason is
the feedback; the feedback model judges the trajectory as read back from the
graph, and a retry learns which facts were rejected from there too.
The feedback model is the agent family's own, or another (`feedback`), so
either family can judge either generator.
"""
from __future__ import annotations

from dataclasses import dataclass

from kgtool.core.configs import PartConfig, setting

from kgtool.core.types import CandidateFact, Verdict
from kgtool.errors import ConfigError
from kgtool.reason import steps
from kgtool.reason.agents.safe_base import Feedback, Proposal, StepTask, StepView, part_question
from kgtool.reason.context import BudgetExhausted, HopState, RunContext
from kgtool.reason.methods.base import Outcome
from kgtool.reason.recorders.safe import SafeRecorder
from kgtool.reason.taxonomy import SafeError
from kgtool.reason.trace import TraceRecorder, candidate_row

FEEDBACK_FAMILIES = ("same", "offline", "llm")


@dataclass(frozen=True)
class SafeConfig(PartConfig):
    """SAFE's settings; K and N are the paper's best setting (Appendix A.8)."""

    atomic_steps: int = setting(10, "K: most atomic steps (one KG triple each) in a trajectory (paper: 10)")
    max_retries: int = setting(3, "N: retries of a step the feedback model rejects, with its guidance (paper: 3)")
    top_k: int = setting(3, "candidate facts of the current entity a step is chosen from")
    feedback: str = setting("same", "the feedback model's agents: same (as the generator), offline or llm")
    gamma: float = setting(1.5, "N_eff threshold recorded with each step")

    def check(self) -> None:
        if self.atomic_steps < 1 or self.max_retries < 0 or self.top_k < 1:
            raise ConfigError(f"safe needs atomic_steps >= 1, max_retries >= 0 and top_k >= 1; got "
                              f"{self.atomic_steps}, {self.max_retries} and {self.top_k}")
        if self.feedback not in FEEDBACK_FAMILIES:
            raise ConfigError(f"safe's feedback must be one of {', '.join(FEEDBACK_FAMILIES)}, not {self.feedback!r}")


class Safe:
    """SAFE: step-wise generation, a feedback model per step (error taxonomy, guidance), retries with feedback."""

    taxonomy = SafeError

    # atomic_steps (K) and max_retries (N) are the paper's best setting (Appendix A.8); `max_steps`, the
    # setting of every method, still caps the steps a run records, retries included. top_k (the facts
    # of the current entity a step is chosen from) is the setting CARE's selector uses too, so both
    # methods weigh the same candidates.
    Config = SafeConfig

    def __init__(self, config: SafeConfig | None = None, /, **settings):
        self.settings = SafeConfig.of("safe", config, settings)
        self.atomic_steps = self.settings.atomic_steps
        self.max_retries = self.settings.max_retries
        self.top_k = self.settings.top_k
        self.feedback = self.settings.feedback
        self.gamma = self.settings.gamma

    def config(self) -> dict:
        return self.settings.as_dict()

    # ------------------------------------------------------------------ the loop
    def run(self, ctx: RunContext, question: str) -> Outcome:
        plan = ctx.agents.planner.plan(question)
        if steps.link_topic(ctx, plan) is None:
            # nothing to start from: no step judged "for ''"; the runner says why
            return Outcome([], "no_answer", 0, list(plan.subquestions))
        generator = ctx.role("safe_generator")
        judge = self._feedback_role(ctx)
        kept: list[StepView] = []  # the trajectory so far (attribution and logical steps)
        chain: list[HopState] = []
        retries, number, force, clean = 0, 0, False, True
        final: tuple[StepView, Feedback] | None = None
        try:
            while number < self.atomic_steps and final is None:
                number += 1
                step, fb, tried = self._step(ctx, question, plan, generator, judge, kept, number, force)
                retries += tried
                clean = clean and fb.correct
                if step.kind == "final":
                    final = (step, fb)
                    break
                if step.answer is None:  # nothing found, and nothing better after the retries: a dead end
                    break
                kept.append(step)
                chain.append(HopState(step.step_id, step.hop, step.query, step.entity_id, step.entity, step.fact,
                                      step.answer_id, step.answer, step.generated, step.neff, step.state))
                force = force or fb.force_answer
        except BudgetExhausted:
            pass  # the run's step budget is spent: answer with what the trajectory holds
        if final is None:
            final = self._forced_final(ctx, question, plan, generator, judge, kept, number + 1)
        step, fb = final
        verdict = Verdict(fb.correct, None if fb.correct else step.hop, fb.error_type.value, fb.diagnosis, fb.guidance)
        clean = clean and fb.correct
        status = "answered" if clean and step.answer else ("unverified" if step.answer else "no_answer")
        return Outcome(chain, status, retries, list(plan.subquestions),
                       final_verdict=(step.step_id, verdict, step.attempt), answer=step.answer,
                       answer_id=step.answer_id)

    def _step(self, ctx: RunContext, question: str, plan, generator, judge, kept: list[StepView], number: int,
              force: bool) -> tuple[StepView, Feedback, int]:
        """One step of the trajectory: generate, judge, and retry with the feedback until correct or out of retries.

        Returns the step kept, its judgement and the number of retries. Every
        verdict but a final step's is written here; the final step's verdict
        closes the run.
        """
        entity_id, entity = (kept[-1].answer_id, kept[-1].answer or "") if kept else (plan.topic_id, plan.topic or "")
        part = len(kept)
        subq = part_question(plan, part, entity)
        pool = steps.retrieve_hop(ctx, subq, entity_id, self.top_k) if entity_id and subq else []
        feedback: Feedback | None = None
        previous: StepView | None = None
        rejected: set[str] = set()
        for attempt in range(self.max_retries + 1):
            if attempt:
                rejected = SafeRecorder(ctx).rejected_facts(number)
            task = StepTask(question, plan, part, subq, entity_id, entity, pool, kept, feedback, rejected, force)
            proposal = generator.propose(task)
            step = self._write(ctx, proposal, number, attempt, subq or question, entity_id, entity, pool,
                               kept[-1].step_id if kept else None, previous, feedback)
            fb = judge.judge(question, plan, kept, step, pool)
            last = fb.correct or attempt == self.max_retries
            if step.kind != "final" or not last:
                ctx.trace.verdict(step.step_id, Verdict(fb.correct, None if fb.correct else number,
                                                        fb.error_type.value, fb.diagnosis, fb.guidance), attempt)
            if last:
                return step, fb, attempt
            feedback, previous = fb, step
        raise AssertionError("unreachable: the last attempt returns")

    def _forced_final(self, ctx: RunContext, question: str, plan, generator, judge, kept: list[StepView],
                      number: int) -> tuple[StepView, Feedback]:
        """The final answer when the steps ran out: written and judged once, without retries."""
        entity_id, entity = (kept[-1].answer_id, kept[-1].answer or "") if kept else (plan.topic_id, plan.topic or "")
        task = StepTask(question, plan, len(kept), "", entity_id, entity, [], kept, None, set(), True)
        proposal = generator.propose(task)
        if proposal.kind != "final":
            last = kept[-1] if kept else None
            proposal = Proposal("final", answer_id=last.answer_id if last else None,
                                answer=last.answer if last else None)
        step = self._write(ctx, proposal, number, 0, question, entity_id, entity, [],
                           kept[-1].step_id if kept else None, None, None, charge=False)
        return step, judge.judge(question, plan, kept, step, [])

    # ------------------------------------------------------------------ storage
    def _write(self, ctx: RunContext, proposal: Proposal, number: int, attempt: int, query: str,
               entity_id: str | None, entity: str, pool: list[CandidateFact], prev_step_id: str | None,
               rejected: StepView | None, feedback: Feedback | None, *, charge: bool = True) -> StepView:
        """Record one attempt as a Step (with its candidates), link it to the attempt it retries, read it back."""
        candidates = []
        if proposal.kind != "final":
            for cand in pool:
                score, passes = proposal.judged.get(cand.fact_id, (cand.score, True))
                candidates.append(candidate_row(cand, score=score, passes=passes,
                                                extra_scores={"generator": score} if proposal.judged else None))
        row = TraceRecorder.step_row(hop=number, attempt=attempt, query=query, entity_id=entity_id, entity=entity,
                                     gamma=self.gamma, prev_step_id=prev_step_id, candidates=candidates,
                                     chosen=proposal.fact, answer_id=proposal.answer_id, answer=proposal.answer,
                                     generated=proposal.kind == "logical", kind=proposal.kind)
        hop = HopState(row["id"], number, query, entity_id, entity, proposal.fact, proposal.answer_id,
                       proposal.answer)
        steps.record_one(ctx, row, hop, charge=charge)
        record = SafeRecorder(ctx)
        if proposal.fact is None:
            record.statement(row["id"], proposal.statement or None, proposal.evidence or None)
        if rejected is not None and feedback is not None:
            record.retry(rejected.step_id, row["id"], kind="reselect" if proposal.fact is not None
                               else "fallback", reason=feedback.as_text())
        return record.attempt(row["id"])

    def _feedback_role(self, ctx: RunContext):
        return ctx.role("safe_feedback", None if self.feedback == "same" else self.feedback)
