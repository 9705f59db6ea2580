"""SAFE's step generator without an LLM: one atomic step at a time, steered by the feedback.

The next step answers the next part of the plan: the selector judges the
current entity's facts in force (the plan's relation hint for the part), and
the best passing fact not rejected yet is cited. With none, the answer is read
off the pool's evidence (a logical step) or the step reports that nothing was
found. The feedback of a rejected attempt steers the retry: its suggested fact
is cited when the pool holds it, rejected facts are never cited again, and
guidance to answer now (overthinking, a wrong conclusion) gives the final step.
"""
from __future__ import annotations

from kgtool.core.types import CandidateFact
from kgtool.reason import steps
from kgtool.reason.agents.safe_base import ANSWER_MARK, Proposal, StepTask
from kgtool.reason.taxonomy import SafeError as E


class OfflineSafeGenerator:
    def __init__(self, env):
        self.selector = env.agents.selector
        self.generator = env.agents.generator
        self.link = env.link

    def propose(self, task: StepTask) -> Proposal:
        fb = task.feedback
        wants_answer = task.force or task.part >= task.parts or (
            fb is not None and fb.force_answer and fb.error_type != E.PREMATURE_CONCLUSION)
        if wants_answer and not (fb is not None and fb.error_type == E.PREMATURE_CONCLUSION):
            return self._final(task)
        pool = [c for c in task.pool if c.fact_id not in task.rejected]
        if fb is not None and fb.suggested_fact_id:
            for cand in pool:
                if cand.fact_id == fb.suggested_fact_id:
                    answer_id, answer = _answer(cand, task.entity_id)
                    return Proposal("attribution", fact=cand, answer_id=answer_id, answer=answer,
                                    evidence=cand.evidence, statement=f"cite the suggested fact ({fb.error_type})")
        judged: dict[str, tuple[float, bool]] = {}
        chosen: CandidateFact | None = None
        if pool:
            judgements = self.selector.judge(task.subquestion, task.entity, pool, **task.plan.hop_hints(task.part))
            judged = {c.fact_id: (j.score, j.passes) for c, j in zip(pool, judgements)}
            chosen = steps.best_passing(pool, judgements)
        if chosen is not None:
            answer_id, answer = _answer(chosen, task.entity_id)
            return Proposal("attribution", fact=chosen, answer_id=answer_id, answer=answer, evidence=chosen.evidence,
                            judged=judged)
        # the family's generator reads an answer off the pool's evidence, linked to the graph
        answer = self.generator.generate(task.subquestion, task.entity, [c.evidence for c in pool])
        answer_id = self.link(answer) if answer else None
        if answer:
            evidence = " ".join(c.evidence for c in pool if answer.casefold() in (c.evidence or "").casefold())
            return Proposal("logical", answer_id=answer_id, answer=answer, evidence=evidence, judged=judged,
                            statement=f"read {answer!r} off the evidence of {task.entity!r}")
        return Proposal("attribution", judged=judged,
                        statement=f"no fact of {task.entity!r} answers {task.subquestion!r}")

    def _final(self, task: StepTask) -> Proposal:
        kept = [s for s in task.prefix if s.kind != "final"]
        if kept:
            last = kept[-1]
            answer_id, answer = last.answer_id, last.answer
        else:
            answer_id, answer = None, None
        return Proposal("final", answer_id=answer_id, answer=answer, statement=f"{ANSWER_MARK} {answer or ''}")


def _answer(fact: CandidateFact, entity_id: str | None) -> tuple[str, str]:
    """(id, name) of the end of the fact that is not the current entity."""
    if entity_id is not None and fact.tail_id == entity_id and fact.head_id != entity_id:
        return fact.head_id, fact.head
    if entity_id is not None and fact.head_id == entity_id:
        return fact.tail_id, fact.tail
    return fact.answer_from(entity_id or "")


def offline_generator(env) -> OfflineSafeGenerator:
    return OfflineSafeGenerator(env)
