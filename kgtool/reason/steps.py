"""The steps every method composes: retrieve a hop, judge it, record it with its
N_eff, reselect the next stored candidate, fall back to grounded generation,
and read the chain back from the database.

Each takes the answer's RunContext; none keeps state of its own, so a method
is its control loop and nothing else.
"""
from __future__ import annotations

from typing import Sequence

from kgtool.core.types import CandidateFact, ChainLink, Judgement, Plan
from kgtool.reason.context import HopState, RunContext
from kgtool.reason.trace import TraceRecorder, candidate_row
from kgtool.retrieve.hop import candidate_from_row


def retrieve_hop(ctx: RunContext, query: str, entity_id: str | None, top_k: int | None) -> list[CandidateFact]:
    """The entity's 1-hop pool in the answer's scope (one Cypher read, memoised), ranked by the named scorers."""
    pool = ctx.retriever.pool(ctx.session, entity_id, ctx.scope, ctx.memo) if entity_id else []
    return ctx.retriever.rank(query, pool, top_k)


def best_passing(ranked: Sequence[CandidateFact], judgements: Sequence[Judgement]) -> CandidateFact | None:
    """The candidate the selector scored highest among those passing every rule (earlier rank on ties)."""
    passing = [(j.score, -c.rank, c) for c, j in zip(ranked, judgements) if j.passes]
    return max(passing, key=lambda t: (t[0], t[1]))[2] if passing else None


def grounded_fallback(ctx: RunContext, query: str, entity: str, evidence: Sequence[str]) -> tuple[str | None, str | None, bool]:
    """(answer id, answer, generated): the generator's answer read off local evidence, linked to the graph."""
    answer = ctx.agents.generator.generate(query, entity, list(evidence))
    return (ctx.link(answer) if answer else None), answer, answer is not None


def select_hop(ctx: RunContext, pending: list[dict], plan: Plan, index: int, query: str, entity_id: str | None,
               entity: str, prev_step_id: str | None, top_k: int, attempt: int = 0) -> HopState:
    """Retrieve, judge and choose one hop (CARE's selector protocol); its Step row joins `pending`.

    With no passing candidate the hop is generated from the pool's evidence.
    Write `pending` with `record` before anything reads these steps back.
    """
    ranked = retrieve_hop(ctx, query, entity_id, top_k)
    judgements = ctx.agents.selector.judge(query, entity, ranked, **plan.hop_hints(index)) if ranked else []
    chosen = best_passing(ranked, judgements)
    if chosen is not None:
        answer_id, answer = chosen.answer_from(entity_id)
        generated = False
    else:
        answer_id, answer, generated = grounded_fallback(ctx, query, entity, [c.evidence for c in ranked])
    candidates = [candidate_row(c, score=j.score, passes=j.passes, extra_scores={"selector": j.score})
                  for c, j in zip(ranked, judgements)]
    row = TraceRecorder.step_row(hop=index + 1, attempt=attempt, query=query, entity_id=entity_id, entity=entity,
                                 gamma=ctx.gamma, prev_step_id=prev_step_id, candidates=candidates, chosen=chosen,
                                 answer_id=answer_id, answer=answer, generated=generated)
    pending.append(row)
    return HopState(row["id"], index + 1, query, entity_id, entity, chosen, answer_id, answer, generated)


def record(ctx: RunContext, pending: list[dict], hops: Sequence[HopState]) -> None:
    """Write pending steps in one statement; their N_eff and state come back onto the hops."""
    ctx.budget.charge_steps(len(pending))
    for hop, stored in zip(hops, ctx.trace.record_steps(pending)):
        hop.neff, hop.state = stored.neff, stored.state
    pending.clear()


def record_and_read_chain(ctx: RunContext, pending: list[dict], hops: Sequence[HopState],
                          chain: Sequence[HopState]) -> list[ChainLink]:
    """`record`, then `read_chain` of `chain`, in one statement: the chain is still read from the database.

    For a loop that records a round's hops and has the chain judged at once
    (CARE's critic); with nothing pending it is `read_chain` alone.
    """
    if not pending:
        return read_chain(ctx, chain)
    ctx.budget.charge_steps(len(pending))
    stored, rows = ctx.trace.record_steps_and_chain(pending, [h.step_id for h in chain] if chain else None)
    for hop, step in zip(hops, stored):
        hop.neff, hop.state = step.neff, step.state
    pending.clear()
    return chain_links(rows)


def reselect(ctx: RunContext, old: HopState, *, chain_end_step_id: str, prev_step_id: str | None,
             reason: str) -> HopState:
    """Revise a rejected hop: the next-best stored candidate, read back from the graph, else grounded generation.

    The revision is a new Step carrying the old pool with the rejected choice
    discarded; the trace links it (REVISED_AS, BACKTRACK) as a reselection,
    and the step's `generated` flag tells when the pool was exhausted.
    """
    step_id = ctx.trace.revise(old_step_id=old.step_id, from_step_id=chain_end_step_id, prev_step_id=prev_step_id,
                               kind="reselect", reason=reason)
    fact = ctx.trace.next_candidate(step_id)
    if fact is not None:
        answer_id, answer = fact.answer_from(old.entity_id)
        generated = False
    else:
        pool = ctx.retriever.pool(ctx.session, old.entity_id, ctx.scope, ctx.memo) if old.entity_id else []
        evidence = [c.evidence for c in pool if not old.fact or c.fact_id != old.fact.fact_id]
        answer_id, answer, generated = grounded_fallback(ctx, old.query, old.entity, evidence)
    ctx.trace.set_answer(step_id, chosen=fact, answer_id=answer_id, answer=answer, generated=generated)
    return HopState(step_id, old.hop, old.query, old.entity_id, old.entity, fact, answer_id, answer, generated,
                    old.neff, old.state)


def read_chain(ctx: RunContext, chain: Sequence[HopState]) -> list[ChainLink]:
    """The chain as stored in the database (what a critic or verifier judges)."""
    if not chain:
        return []
    return chain_links(ctx.trace.chain([h.step_id for h in chain]))


def chain_links(rows: Sequence[dict]) -> list[ChainLink]:
    """Chain rows as `trace/chain` returns them, as the links a judge reads."""
    links = []
    for row in rows:
        fact = None
        if row["fact_id"]:
            fact = candidate_from_row(row)
            fact.direction = "in" if row["tail_id"] == row["entity_id"] and row["head_id"] != row["entity_id"] else "out"
        links.append(ChainLink(hop=row["hop"], subquestion=row["query"], entity_in=row["entity"] or "", fact=fact,
                               answer=row["answer"] or "", generated=row["generated"], evidence=row["evidence"] or ""))
    return links
