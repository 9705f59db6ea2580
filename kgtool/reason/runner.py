"""Run one registered method on one question: open the run, meter it, close it.

The runner owns what every method shares: the session, the trace, the agent
family, the token meter, the latency clock and the failure path. Model and
gazetteer loading happen before the clock starts and are stored as `load_ms`,
so `latency_ms` is the answer's own cost.
"""
from __future__ import annotations

import contextlib
import time

from kgtool.core.bounds import check_question
from kgtool.core.scope import Scope
from kgtool.core.text import clean_text
from kgtool.core.types import Answer, Usage
from kgtool.errors import InputError
from kgtool.core.types import Plan, Verdict
from kgtool.reason import status as status_rule
from kgtool.reason.agents.factory import ROLES
from kgtool.reason.reading.form import year_of_date_value
from kgtool.reason.context import Budget, RunContext
from kgtool.reason.explains import chain_gaps
from kgtool.reason.text_evidence import TextEvidence
from kgtool.reason.trace import TraceRecorder
from kgtool.reason.trace_sections import method_class_address
from kgtool.retrieve.hop import HopRetriever


def clean_question(question: str) -> str:
    """The question with control and zero-width characters removed and spaces collapsed."""
    if not isinstance(question, str):
        raise InputError(f"a question must be a string, got {type(question).__name__}")
    kept = clean_text(question)  # the rule names are normalised with at ingest (kgtool.core.text)
    if not kept:
        raise InputError("the question is empty (only spaces or control characters); ask something")
    return kept


def build_method(kg, name: str, config: dict):
    """The method `name` with `config`; a global setting fills only what the method's Config maps to it."""
    return kg.methods.create_with(name, config, settings=kg.settings)


def run_method(kg, question: str, *, method: str, agents: str, scope: Scope, config: dict,
               min_confidence: float | None = None) -> Answer:
    question = clean_question(question)
    check_question(question, max_chars=int(kg.settings.max_question_chars),
                   max_word_chars=int(kg.settings.max_word_chars))  # before anything links it
    chosen = build_method(kg, method, config)
    t_load = time.perf_counter()
    kg.prepare(agents)
    memo: dict = {}
    agent_set = kg.agents.create(agents, kg, scope, memo)
    plans = _PlanLog(agent_set.planner)
    agent_set.planner = plans  # every role that plans the question goes through it: the status rule reads it
    load_ms = (time.perf_counter() - t_load) * 1000
    t0 = time.perf_counter()
    meter = agent_set.usage_source.tracking() if agent_set.usage_source is not None else contextlib.nullcontext(Usage())
    with kg.db.session() as session, meter as usage, _bound(agent_set.view, session):
        trace = TraceRecorder(kg.db, session, chosen.taxonomy)
        record = {"embedder": kg.settings.embedder, "llm_model": kg.settings.llm_model if agents == "llm" else None,
                  "method_class": method_class_address(chosen),  # where its trace sections are declared
                  "method_version": kg.methods.entry(method).version}  # runs of a changed method tell apart
        trace.start_run(question, method, agents, scope, record, chosen.config())
        ctx = RunContext(kg.db, session, scope, agent_set, HopRetriever(kg.db, registry=kg.scorers), trace,
                         kg.catalog.link, gamma=chosen.config().get("gamma", kg.settings.gamma), usage=usage,
                         services=kg, budget=Budget(max_steps=kg.settings.max_steps), memo=memo, roles=ROLES,
                         question=question)
        # one failure path for every method: whatever raises, in the method or while closing,
        # leaves the Run failed with its error instead of 'running'
        try:
            outcome = chosen.run(ctx, question)
            # a date value asked for its year answers the year: only the question itself still says "what year"
            # (the offline plans rephrase it)
            outcome.answer = year_of_date_value(outcome.answer, outcome.answer_id, ctx.analysis.form)
            followed = outcome.followed or plans.of(question)
            settled = status_rule.settle(
                outcome.status, outcome.answer, outcome.chain, followed,
                method_reason=_judge_reason(outcome),
                question_mentions=lambda: len(kg.catalog.link_mentions(question)),
                reading_gaps=lambda: chain_gaps(kg, plans.inner, ctx.analysis, outcome.chain, followed),
                text_gaps=lambda: TextEvidence(kg.db, session, scope).gaps(question, outcome.chain, outcome.answer,
                                                                           outcome.answer_id),
                unfinished=getattr(kg, "unfinished_ingests", None),  # kgtool.health, through the services
                min_confidence=min_confidence, gamma=chosen.config().get("gamma", kg.settings.gamma))
            shown = outcome.answer if settled.answer_shown else None  # a no_answer keeps its guess in the trace
            shown_id = outcome.answer_id if settled.answer_shown else None
            latency_ms = (time.perf_counter() - t0) * 1000
            finish = trace.finish_fields(answer=shown, answer_id=shown_id, status=settled.status,
                                         latency_ms=latency_ms, load_ms=load_ms, usage=usage,
                                         backtracks=outcome.backtracks,
                                         chain_step_ids=[h.step_id for h in outcome.chain], reason=settled.reason)
            finish.update(confidence=settled.confidence, guess=settled.guess)
            if outcome.final_verdict is not None:
                step_id, verdict, round_ = outcome.final_verdict
                if settled.no_entity:
                    # the judge saw an empty chain ("self-loop on ''"); the run's last word is why it was empty
                    verdict = Verdict(False, None, None, settled.reason or "")
                trace.verdict(step_id, verdict, round_, finish=finish)
            else:
                trace.finish(finish)
        except BaseException as exc:
            _record_failure(trace, exc, t0, load_ms, usage)
            raise
    return Answer(question, shown, shown_id, [h.as_chain_entry() for h in outcome.chain],
                  trace.run_id, method, agents, settled.status, latency_ms, usage.tokens, outcome.backtracks,
                  outcome.plan, load_ms, reason=settled.reason, confidence=settled.confidence, guess=settled.guess,
                  confidence_evidence=settled.evidence.as_dict() if settled.evidence else None)


class _PlanLog:
    """The agent family's planner, remembering the plan it made for each question it was asked."""

    def __init__(self, planner):
        self.inner = planner
        self._plans: dict[str, Plan] = {}

    def plan(self, question: str) -> Plan:
        made = self.inner.plan(question)
        self._plans[question] = made
        return made

    def of(self, question: str) -> Plan | None:
        return self._plans.get(question)

    def __getattr__(self, name):  # the planner's own attributes (matcher, graph, ...) as before
        return getattr(self.inner, name)


def _judge_reason(outcome) -> str | None:
    """What the method's final judge said against the chain (None when it accepted it, or there was none)."""
    if outcome.final_verdict is None:
        return None
    verdict = outcome.final_verdict[1]
    if verdict.valid:
        return None
    explanation = " ".join((verdict.explanation or "").split())
    return f"{verdict.error_type}: {explanation}" if verdict.error_type else (explanation or None)


def _record_failure(trace: TraceRecorder, exc: BaseException, t0: float, load_ms: float, usage: Usage) -> None:
    """Close the run as failed with the error's class, message and the step it happened after.

    Written in a session of its own: the answer's session may be the thing that
    broke. A database that is gone must not hide the original error; the run
    then stays open until a server restart marks it abandoned.
    """
    message = " ".join(str(exc).split()) or "(no message)"
    if isinstance(exc, KeyboardInterrupt):
        message = "interrupted"
    fields = trace.finish_fields(answer=None, answer_id=None, status="failed",
                                 latency_ms=(time.perf_counter() - t0) * 1000, load_ms=load_ms, usage=usage,
                                 backtracks=0, chain_step_ids=[], error=f"{type(exc).__name__}: {message}"[:1000])
    del fields["chain_step_ids"], fields["answer"], fields["answer_id"], fields["backtracks"]
    fields.update(error_class=type(exc).__name__, error_message=message[:1000])
    with contextlib.suppress(Exception):
        trace.flush()  # the deferred trace writes made before the failure are part of the run's record
    with contextlib.suppress(Exception):
        trace.db.write("trace/fail_run", run_id=trace.run_id, failure=fields)


@contextlib.contextmanager
def _bound(view, session):
    """Let the offline agents' graph reads use this answer's session."""
    if view is not None:
        view.session = session
    try:
        yield
    finally:
        if view is not None:
            view.session = None
