"""CARE: planner -> selector per hop -> critic with bounded backtracking.

The protocol of the CARE paper (section 3.4): the planner splits the question
into sub-questions chained by an [ENT] placeholder; for each hop the selector
ranks the top-K facts (BM25 over evidence) of the current entity's 1-hop
neighbourhood under four rules; the critic audits the assembled chain and, on
a failure at hop i, the loop backtracks there (at most tau_max times):
reselect the next-best stored candidate, or, when the pool is exhausted,
generate the hop from local evidence, then redo the hops after it.

Every hop and verdict is written to Neo4j while the loop runs (kgtool.reason.trace;
a critic round's hops go in one statement, just before the critic reads them back),
and the loop reads its state back from there.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from kgtool.graph.db import Database
from kgtool.reason.agents.base import PLACEHOLDER, CandidateFact, ChainLink, Judgement, Plan, Usage, Verdict
from kgtool.reason.trace import TraceWriter
from kgtool.retrieve.hop import HopRetriever, Scope, candidate_from_row


@dataclass
class AgentSet:
    """The four CARE roles of one agent family."""

    kind: str
    planner: Any
    selector: Any
    critic: Any
    generator: Any
    usage_source: Any = None  # object with a `.usage` (the shared LLM client), or None
    view: Any = None  # the offline agents' GraphView; reads through the loop's session

    def usage(self) -> Usage:
        return getattr(self.usage_source, "usage", None) or Usage()


@dataclass
class Hop:
    """One hop of the current chain (mirrors a stored Step)."""

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


@dataclass
class Answer:
    question: str
    answer: str | None
    answer_id: str | None
    chain: list[dict]
    run_id: str
    method: str
    agents: str
    status: str
    latency_ms: float
    tokens: int = 0
    backtracks: int = 0
    plan: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in (
            "question", "answer", "answer_id", "chain", "run_id", "method", "agents", "status", "latency_ms",
            "tokens", "backtracks", "plan")}


def instantiate(subquestion: str, entity: str) -> str:
    return subquestion.replace(PLACEHOLDER, entity)


class CareLoop:
    method = "care"

    def __init__(self, db: Database, agents: AgentSet, retriever: HopRetriever, *, link, top_k: int = 3,
                 tau_max: int = 2, gamma: float = 1.5, settings_record: dict | None = None,
                 pool_memo: dict | None = None):
        self.db = db
        self.agents = agents
        self.retriever = retriever
        self.link = link  # name -> entity id or None (for topics and generated answers)
        self.top_k = top_k
        self.tau_max = tau_max
        self.gamma = gamma
        self.settings_record = settings_record or {}
        self.pool_memo = pool_memo  # neighbourhoods already read during this answer

    # --- one hop -----------------------------------------------------------
    def _hop(self, pending: list[dict], session, scope: Scope, plan: Plan, index: int, entity_id: str | None,
             entity: str, prev_step_id: str | None, attempt: int = 0) -> Hop:
        """Retrieve, rank and select one hop; its Step row joins `pending` (written by _forward)."""
        query = instantiate(plan.subquestions[index], entity) if index else plan.subquestions[0]
        pool = self.retriever.pool(session, entity_id, scope, self.pool_memo) if entity_id else []
        ranked = self.retriever.rank(query, pool, self.top_k)
        judgements = self.agents.selector.judge(query, entity, ranked, **plan.hop_hints(index)) if ranked else []
        chosen = _best(ranked, judgements)
        generated = False
        if chosen is not None:
            answer_id, answer = chosen.answer_from(entity_id)
        else:
            answer = self.agents.generator.generate(query, entity, [c.evidence for c in ranked])
            answer_id = self.link(answer) if answer else None
            generated = answer is not None
        row = TraceWriter.step_row(
            hop=index + 1, attempt=attempt, query=query, entity_id=entity_id, entity=entity, gamma=self.gamma,
            prev_step_id=prev_step_id, candidates=ranked, judgements=judgements, chosen=chosen,
            answer_id=answer_id, answer=answer, generated=generated,
        )
        pending.append(row)
        return Hop(row["id"], index + 1, query, entity_id, entity, chosen, answer_id, answer, generated)

    def _forward(self, trace, session, run_id, scope, plan, chain: list[Hop], start: int) -> list[Hop]:
        """Run hops start.. of the plan after `chain` (which holds hops 0..start-1).

        The new hops are written in one statement at the end, before the critic
        reads the chain back: one round trip per critic round instead of one per hop.
        """
        first_new = len(chain)
        pending: list[dict] = []
        for index in range(start, len(plan.subquestions)):
            if index == 0:
                entity_id, entity = plan.topic_id, plan.topic or ""
            else:
                entity_id, entity = chain[-1].answer_id, chain[-1].answer or ""
            if index and not entity:
                break  # a dead end: nothing to continue from
            prev = chain[-1].step_id if chain else None
            chain.append(self._hop(pending, session, scope, plan, index, entity_id, entity, prev))
        for hop, record in zip(chain[first_new:], trace.record_steps(run_id, pending)):
            hop.neff, hop.state = record.neff, record.state
        return chain

    # --- the loop ----------------------------------------------------------
    def answer(self, question: str, scope: Scope | None = None) -> Answer:
        scope = scope or Scope()
        t0 = time.perf_counter()
        usage_before = _copy(self.agents.usage())
        with self.db.session() as session, self._bound(session):
            trace = TraceWriter(self.db, session)
            run_id = trace.start_run(question, self.method, self.agents.kind, scope.label(), self.settings_record)
            plan = self.agents.planner.plan(question)
            if plan.topic_id is None and plan.topic:
                plan.topic_id = self.link(plan.topic)
            chain = self._forward(trace, session, run_id, scope, plan, [], 0) if plan.subquestions else []
            backtracks, round_ = 0, 0
            while True:
                round_ += 1
                links = self._read_chain(trace, chain)
                answer = chain[-1].answer if chain else None
                verdict = self.agents.critic.review(question, links, answer or "", relations=plan.relations or None)
                failed = verdict.failed_hop
                failed_step = chain[failed - 1].step_id if failed and 0 < failed <= len(chain) else (
                    chain[-1].step_id if chain else None)
                if verdict.valid or backtracks >= self.tau_max or not failed or failed > len(chain):
                    break  # this verdict is written below, with the run's outcome
                trace.verdict(run_id, failed_step, verdict, round_)
                backtracks += 1
                chain = self._backtrack(trace, session, run_id, scope, plan, chain, failed - 1, verdict)
            answer = chain[-1].answer if chain else None
            answer_id = chain[-1].answer_id if chain else None
            status = "answered" if verdict.valid and answer else ("unverified" if answer else "no_answer")
            usage = _diff(self.agents.usage(), usage_before)
            latency_ms = (time.perf_counter() - t0) * 1000
            trace.verdict(run_id, failed_step, verdict, round_, finish=trace.finish_fields(
                answer=answer, answer_id=answer_id, status=status, latency_ms=latency_ms, usage=usage,
                backtracks=backtracks, chain_step_ids=[h.step_id for h in chain]))
        return Answer(question, answer, answer_id, [_chain_entry(h) for h in chain], run_id, self.method,
                      self.agents.kind, status, latency_ms, usage.tokens, backtracks, list(plan.subquestions))

    @contextmanager
    def _bound(self, session):
        """Let the offline agents' graph reads use this answer's session."""
        view = self.agents.view
        if view is not None:
            view.session = session
        try:
            yield
        finally:
            if view is not None:
                view.session = None

    def _backtrack(self, trace, session, run_id, scope, plan, chain: list[Hop], i: int, verdict: Verdict) -> list[Hop]:
        """Revise hop i: the next-best stored candidate, else generation; then redo later hops."""
        old = chain[i]
        new_step = trace.revise(old_step_id=old.step_id, from_step_id=chain[-1].step_id,
                                prev_step_id=chain[i - 1].step_id if i else None,
                                reason=f"{verdict.error_type or 'rejected'}: {verdict.explanation}"[:500])
        nxt = trace.next_candidate(new_step)
        if nxt is not None:
            answer_id, answer = nxt.answer_from(old.entity_id)
            generated = False
        else:
            pool = self.retriever.pool(session, old.entity_id, scope, self.pool_memo) if old.entity_id else []
            evidence = [c.evidence for c in pool if not old.fact or c.fact_id != old.fact.fact_id]
            answer = self.agents.generator.generate(old.query, old.entity, evidence)
            answer_id = self.link(answer) if answer else None
            generated = answer is not None
        trace.set_answer(new_step, chosen=nxt, answer_id=answer_id, answer=answer, generated=generated)
        revised = Hop(new_step, old.hop, old.query, old.entity_id, old.entity, nxt, answer_id, answer, generated,
                      old.neff, old.state)
        return self._forward(trace, session, run_id, scope, plan, chain[:i] + [revised], i + 1)

    @staticmethod
    def _read_chain(trace: TraceWriter, chain: list[Hop]) -> list[ChainLink]:
        """The critic sees the chain as stored in the database."""
        if not chain:
            return []
        links = []
        for row in trace.chain([h.step_id for h in chain]):
            fact = None
            if row["fact_id"]:
                fact = candidate_from_row(row)
                fact.direction = "in" if row["tail_id"] == row["entity_id"] and row["head_id"] != row["entity_id"] else "out"
            links.append(ChainLink(hop=row["hop"], subquestion=row["query"], entity_in=row["entity"] or "",
                                   fact=fact, answer=row["answer"] or "", generated=row["generated"],
                                   evidence=row["evidence"] or ""))
        return links


def _best(ranked: list[CandidateFact], judgements: list[Judgement]) -> CandidateFact | None:
    passing = [(j.score, -c.rank, c) for c, j in zip(ranked, judgements) if j.passes]
    if not passing:
        return None
    return max(passing, key=lambda t: (t[0], t[1]))[2]


def _chain_entry(h: Hop) -> dict:
    entry = {"hop": h.hop, "question": h.query, "entity": h.entity, "answer": h.answer, "answer_id": h.answer_id,
             "generated": h.generated, "neff": h.neff, "state": h.state, "step_id": h.step_id}
    if h.fact:
        entry.update(fact_id=h.fact.fact_id, head=h.fact.head, relation=h.fact.relation, tail=h.fact.tail,
                     evidence=h.fact.evidence)
    return entry


def _copy(u: Usage) -> Usage:
    return Usage(u.calls, u.prompt_tokens, u.completion_tokens, u.cached_calls)


def _diff(after: Usage, before: Usage) -> Usage:
    return Usage(after.calls - before.calls, after.prompt_tokens - before.prompt_tokens,
                 after.completion_tokens - before.completion_tokens, after.cached_calls - before.cached_calls)
