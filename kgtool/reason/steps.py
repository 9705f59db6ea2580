"""The steps every method composes: link the plan's topic, retrieve a hop (facts,
passages, neighbourhoods), judge it, record it with its N_eff, reselect the next
stored candidate (with or without a fallback to grounded generation), read the
chain back from the database, and weigh the run's budget.

Each takes the answer's RunContext; none keeps state of its own, so a method
is its control loop and nothing else. A method's own state (constraints, a
ledger, plan versions, attempts) goes through its recorder in
kgtool.reason.recorders.
"""
from __future__ import annotations

import re
from typing import Callable, Sequence, TypeVar

from kgtool.core.text import relation_key, strip_disambiguation
from kgtool.core.types import CandidateFact, ChainLink, Judgement, Plan
from kgtool.reason.context import BudgetExhausted, HopState, RunContext
from kgtool.reason.trace import TraceRecorder, candidate_row
from kgtool.retrieve.hop import candidate_from_row, read_pools
from kgtool.retrieve.passages import PassageRetriever

T = TypeVar("T")


# ---------------------------------------------------------------------- topic
def link_topic(ctx: RunContext, plan, fallback: str | None = None) -> str | None:
    """Link the plan's topic to an Entity id when the planner left it unlinked (else `fallback`); the id."""
    if plan.topic_id is None and plan.topic:
        plan.topic_id = ctx.link(plan.topic) or fallback
    return plan.topic_id


# ---------------------------------------------------------------------- retrieval
def retrieve_hop(ctx: RunContext, query: str, entity_id: str | None, top_k: int | None) -> list[CandidateFact]:
    """The entity's 1-hop pool in the answer's scope (one Cypher read, memoised), ranked by the named scorers."""
    pool = ctx.retriever.pool(ctx.session, entity_id, ctx.scope, ctx.memo) if entity_id else []
    return ctx.retriever.rank(query, pool, top_k)


def retrieve_passages(ctx: RunContext, query: str, k: int) -> list:
    """The k passages of the answer's scope the full-text pool and the named scorers rank first for `query`."""
    return PassageRetriever(ctx.db, registry=ctx.services.scorers).retrieve(ctx.session, query, ctx.scope, k)


def passages_naming(ctx: RunContext, hits: Sequence, entity_ids: Sequence[str], names: Sequence[str]) -> list:
    """Of the retrieved passages, those about what a hop asks of: each mentions one of the entities (as
    ingestion linked it), belongs to a document about one, or writes one of the names as it is written,
    as a whole word (title included). A name in lower case ("composer") counts only through the link:
    the word itself is on many pages about other things.

    C2RAG's textual recovery of a hop over the user's own stated facts reads only passages naming its
    known end or one of its candidates.
    """
    wanted = {e for e in entity_ids if e}
    linked = ({r["passage_id"]: {e["id"] for e in r["entities"]}
               for r in ctx.db.run_in(ctx.session, "passages/mentions", ids=[h.passage_id for h in hits])}
              if wanted and hits else {})
    patterns = [re.compile(rf"(?<!\w){re.escape(n)}(?!\w)")
                for n in dict.fromkeys(n.strip() for n in names) if len(n) > 1 and n != n.lower()]
    return [h for h in hits
            if wanted & linked.get(h.passage_id, set())
            or any(p.search(f"{h.title}\n{h.text}") for p in patterns)]


def anchored_passages(ctx: RunContext, known: Sequence[str], asked: Sequence[str], question: str, k: int,
                       says: float = 0.25) -> list:
    """Passages for a phrase asked of a known entity, read from text: the pages of the entity's own
    document, when one of them leans towards what is asked (the offline matcher's `expresses`, at least
    `says` on its 0..1 scale: "President" for "in charge" is 0.27, a page about a river for "which
    bassist co-founded" 0), else those retrieved for it with the whole question. Ranked on the question, a store of documents puts
    the first hop's pages and strangers' pages sharing a word ("charge") before the page about the
    entity the phrase is asked of; where that page says nothing of it, the question's own passages
    are the better bet. `says` (0.25) rests on the two examples above, read by hand, not on a sweep of
    any question set."""
    full = retrieve_passages(ctx, " ".join([*known, *asked, question]), k)
    seen = {h.passage_id for h in full}
    hits = full + [h for h in retrieve_passages(ctx, " ".join([*known, *asked]), k) if h.passage_id not in seen]
    titles = {_title_key(n) for n in known if n}
    own = [h for h in hits if _title_key(h.title or "") in titles]
    matcher = ctx.services.matcher
    if own and matcher is not None:
        prof = matcher.profile("asked:" + "|".join(asked), list(asked))
        analyses = matcher.analyse_many([(h.text or "", ()) for h in own], whole=False)
        if any(matcher.expresses(a, prof) >= says for a in analyses):
            return own
    return full


def _title_key(title: str) -> str:
    """A page title as a name: "Dead Ernest (novel)" is a page about Dead Ernest."""
    return strip_disambiguation(title).lower()


def neighbour_pools(ctx: RunContext, entity_ids: Sequence[str]) -> dict[str, list[CandidateFact]]:
    """Each entity's 1-hop facts in the answer's scope, in one read (one fact per relation group)."""
    pools, _cut = read_pools(ctx.db, ctx.session, list(entity_ids), ctx.scope, per_group=1)
    return pools


def entity_candidates(ctx: RunContext, words: str, limit: int) -> list[dict]:
    """Entities whose name or aliases share words with `words` (plain words, no Lucene syntax), best first."""
    return ctx.db.run_in(ctx.session, "c2rag/anchor_candidates", query=words, limit=limit) if words else []


def stated_value_relations(ctx: RunContext, fact_ids: Sequence[str], subject_ids: Sequence[str]) -> list[dict]:
    """Of the facts, those that are stated, uncontested values of a relation of one of the subjects,
    with that relation's key (rows of fact_id, relation_key): C2RAG's many-valued hops."""
    return ctx.db.run_in(ctx.session, "c2rag/settled_values", fact_ids=list(fact_ids), subject_ids=list(subject_ids))


def entity_name(ctx: RunContext, entity_id: str) -> str:
    return ctx.services.catalog.entity_name(entity_id)


# ---------------------------------------------------------------------- selection
def best_passing(ranked: Sequence[CandidateFact], judgements: Sequence[Judgement]) -> CandidateFact | None:
    """The candidate the selector scored highest among those passing every rule (earlier rank on ties)."""
    passing = [(j.score, -c.rank, c) for c, j in zip(ranked, judgements) if j.passes]
    return max(passing, key=lambda t: (t[0], t[1]))[2] if passing else None


def toward_next_hop(ctx: RunContext, plan: Plan, index: int, entity_id: str | None,
                    ranked: Sequence[CandidateFact], judgements: Sequence[Judgement],
                    chosen: CandidateFact | None) -> CandidateFact | None:
    """Among equally valid answers of a many-valued hop, one the plan's next relation leads on from.

    "The religion of T's mother" over a graph stating both of T's parents: the selector
    passes both parents for `parents`, and only one may have a religion stated. When the
    plan names the next hop's relation and the chosen answer has no fact of it while a
    sibling (a passing candidate of the same relation and direction) has, the sibling is
    taken. One read of the siblings' relations, and only when there are siblings.
    """
    if chosen is None or entity_id is None or index + 1 >= len(plan.relations):
        return chosen
    kind = (relation_key(chosen.relation, chosen.relation_id), chosen.direction)
    same = [c for j, c in sorted(((j, c) for c, j in zip(ranked, judgements) if j.passes),
                                 key=lambda jc: (-jc[0].score, jc[1].rank))
            if (relation_key(c.relation, c.relation_id), c.direction) == kind]
    if len(same) < 2:
        return chosen
    want = plan.relations[index + 1]
    direction = plan.directions[index + 1] if index + 1 < len(plan.directions) else None
    answers = {c.fact_id: c.answer_from(entity_id)[0] for c in same}
    pools = neighbour_pools(ctx, sorted(set(answers.values())))

    def continues(fact: CandidateFact) -> bool:
        return any(relation_key(f.relation, f.relation_id) == want and (direction is None or f.direction == direction)
                   for f in pools.get(answers[fact.fact_id], []))

    if continues(chosen):
        return chosen
    return next((c for c in same if continues(c)), chosen)  # in the selector's order


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
    chosen = toward_next_hop(ctx, plan, index, entity_id, ranked, judgements, best_passing(ranked, judgements))
    if chosen is not None:
        answer_id, answer = chosen.answer_from(entity_id)
        generated = False
    else:
        answer_id, answer, generated = grounded_fallback(ctx, query, entity, [c.evidence for c in ranked])
    return judged_step(ctx, pending, index, query, entity_id, entity, prev_step_id, ranked, judgements, chosen,
                       answer_id, answer, generated=generated, judge="selector", attempt=attempt)


def judged_step(ctx: RunContext, pending: list[dict], index: int, query: str, entity_id: str | None, entity: str,
                prev_step_id: str | None, ranked: Sequence[CandidateFact], judgements: Sequence[Judgement],
                chosen: CandidateFact | None, answer_id: str | None, answer: str | None, *, generated: bool = False,
                judge: str = "selector", attempt: int = 0) -> HopState:
    """Hop `index + 1` as a Step row in `pending`: its judged candidates (the judge's score stored under
    `judge`), its choice and answer; the HopState that mirrors it."""
    candidates = [candidate_row(c, score=j.score, passes=j.passes, extra_scores={judge: j.score})
                  for c, j in zip(ranked, judgements)]
    row = TraceRecorder.step_row(hop=index + 1, attempt=attempt, query=query, entity_id=entity_id, entity=entity,
                                 gamma=ctx.gamma, prev_step_id=prev_step_id, candidates=candidates, chosen=chosen,
                                 answer_id=answer_id, answer=answer, generated=generated)
    pending.append(row)
    return HopState(row["id"], index + 1, query, entity_id, entity, chosen, answer_id, answer, generated)


# ---------------------------------------------------------------------- recording
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


def record_one(ctx: RunContext, row: dict, hop: HopState, *, charge: bool = True) -> HopState:
    """`record` of one step row; with charge=False the step is written outside the run's step budget."""
    if charge:
        record(ctx, [row], [hop])
    else:
        (stored,) = ctx.trace.record_steps([row])
        hop.neff, hop.state = stored.neff, stored.state
    return hop


# ---------------------------------------------------------------------- revision
def reselect(ctx: RunContext, old: HopState, *, chain_end_step_id: str, prev_step_id: str | None,
             reason: str, kind: str = "reselect", fallback: bool = True) -> HopState:
    """Revise a rejected hop: the next-best stored candidate, read back from the graph, else (with
    `fallback`) grounded generation.

    The revision is a new Step carrying the old pool with the rejected choice
    discarded; the trace links it (REVISED_AS, BACKTRACK) as a revision of
    `kind`, and the step's `generated` flag tells when the pool was exhausted.
    The run's budget counts it as a revision.
    """
    step_id = ctx.trace.revise(old_step_id=old.step_id, from_step_id=chain_end_step_id, prev_step_id=prev_step_id,
                               kind=kind, reason=reason)
    ctx.budget.revisions += 1
    fact = ctx.trace.next_candidate(step_id)
    if fact is not None:
        answer_id, answer = fact.answer_from(old.entity_id)
        generated = False
    elif not fallback:
        answer_id, answer, generated = None, None, False
    else:
        pool = ctx.retriever.pool(ctx.session, old.entity_id, ctx.scope, ctx.memo) if old.entity_id else []
        evidence = [c.evidence for c in pool if not old.fact or c.fact_id != old.fact.fact_id]
        answer_id, answer, generated = grounded_fallback(ctx, old.query, old.entity, evidence)
    ctx.trace.set_answer(step_id, chosen=fact, answer_id=answer_id, answer=answer, generated=generated)
    return HopState(step_id, old.hop, old.query, old.entity_id, old.entity, fact, answer_id, answer, generated,
                    old.neff, old.state)


# ---------------------------------------------------------------------- chain read
def read_chain(ctx: RunContext, chain: Sequence[HopState]) -> list[ChainLink]:
    """The chain as stored in the database (what a critic or verifier judges)."""
    if not chain:
        return []
    return chain_links(ctx.trace.chain([h.step_id for h in chain]))


def chain_links(rows: Sequence[dict]) -> list[ChainLink]:
    """Chain rows as `trace/chain` returns them, as the links a judge reads."""
    links = []
    for row in rows:
        fact = fact_of_row(row)
        links.append(ChainLink(hop=row["hop"], subquestion=row["query"], entity_in=row["entity"] or "", fact=fact,
                               answer=row["answer"] or "", generated=row["generated"], evidence=row["evidence"] or ""))
    return links


def fact_of_row(row: dict) -> CandidateFact | None:
    """The fact a stored step chose (None when it chose none), oriented from the step's entity."""
    if not row["fact_id"]:
        return None
    fact = candidate_from_row(row)
    fact.direction = "in" if row["tail_id"] == row["entity_id"] and row["head_id"] != row["entity_id"] else "out"
    return fact


# ---------------------------------------------------------------------- budget
def room(ctx: RunContext, limit: int | None = None) -> bool:
    """Is there room for one more step: within a method's own `limit` (steps and revisions so far) and the
    run's max_steps (recorded steps)?"""
    budget = ctx.budget
    if limit is not None and budget.steps + budget.revisions + 1 > limit:
        return False
    return budget.max_steps is None or budget.steps + 1 <= budget.max_steps


def agent_call(ctx: RunContext, limit: int | None, call: Callable[[], T]) -> T:
    """One agent call charged to the run; BudgetExhausted once `limit` calls were made."""
    if limit is not None and ctx.budget.calls >= limit:
        raise BudgetExhausted(f"the run made its {limit} agent calls")
    ctx.budget.calls += 1
    return call()
