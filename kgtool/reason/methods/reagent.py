"""ReAgent: reversible multi-agent reasoning with local and global backtracking.

The protocol of the ReAgent paper (../shared/papers/reagent.txt, Algorithm 1
and Section 3.5), with the assertion set Phi^t kept in Neo4j:

1. The decomposer splits the question into sub-questions and asserts them
   (broadcast to retriever, verifier and assembler). Checkpoints mark the
   state of the assertion set: at the start, after the plan, after each hop.
2. Per sub-question the retriever gathers evidence (the entity's facts in the
   answer's scope, ranked by the shared hop retrieval; passages read as links
   when no graph fact passes), the verifier accepts the best candidate and
   asserts the fact it rests on. Conflicts are found in Cypher over the run's
   assertions and the graph (kgtool/cypher/reagent/record.cypher). A
   conflict on the new assertion makes the verifier backtrack locally: it
   reverts its assertions to its last checkpoint and retries with the next
   stored candidate (at most local_retries times); if the conflict persists,
   or nothing is left, the hop is a gap and the conflict goes up.
3. The assembler stores each partial answer and binds the next sub-question's
   entity to it; at the end it assembles the answer or escalates.
4. On an escalation the supervisor takes the conflicts (each a minimal
   conflict set with a culprit) and rolls every agent back to the last global
   checkpoint before the culprit: assertions after it are marked retracted and
   linked to the Rollback (ROLLED_BACK), never deleted; the culprit's hop is
   retried with its next stored candidate and the run continues.
5. After more than controller_after conflicts, or when there is no conflict to
   roll back, the controller intervenes: challenge (the decomposer plans again
   with more evidence; a better plan replaces the old one by a global rollback
   to the start), override (accept the best-supported completed branch), or
   disclaim (no answer).

With offline agents the final answer of a chain that rests on facts read off
passages (or on none) is the shared offline reader's (agents/offline/reagent_read):
the chain's answer stands where the passages retrieved for the question rank it
among their best spans, else their best span is the answer; and where such a
chain escalates to the controller, the passages are read at once instead of a
challenge (the more evidence a challenge plans with is links read off those same
passages). A chain of facts an edit or a fact file states is answered as above.

Every message between agents (assert, inform, reject, challenge) is stored on
the Run. With backtrack=False (the paper's ablation) the loop runs strictly
forward: conflicts are still found and recorded, but nothing is reverted and
the controller never steps in.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kgtool.core.configs import PartConfig, setting
from kgtool.core.types import PLACEHOLDER, CandidateFact, Plan, Verdict
from kgtool.errors import ConfigError
from kgtool.reason import steps
from kgtool.reason.agents import factory
from kgtool.reason.agents.reagent_base import Conflict
from kgtool.reason.context import HopState, RunContext
from kgtool.reason.methods.base import Outcome
from kgtool.reason.recorders.reagent import SECTIONS, Claims, ReagentLedger
from kgtool.reason.reading.form import fits
from kgtool.reason.taxonomy import ReagentError
from kgtool.reason.trace import TraceRecorder, candidate_row

EXECUTION = "retriever,verifier,assembler"


@dataclass(frozen=True)
class ReAgentConfig(PartConfig):
    """ReAgent's settings; defaults from the paper's setup."""

    top_k: int = setting(3, "candidate facts the retriever hands the verifier per sub-question")
    max_steps: int = setting(25, "most reasoning steps (assertions tried) per question")
    controller_after: int = setting(2, "conflicts the supervisor may settle by global rollback before the controller overrides")
    local_retries: int = setting(2, "local backtracks (next candidate) per sub-question before a global rollback")
    backtrack: bool = setting(True, "backtrack locally and roll back globally on conflicts (false: the ablation)")
    text: bool = setting(True, "retrieve passages when the graph has no verified fact")
    gamma: float = setting(1.5, "N_eff threshold recorded with each step")

    def check(self) -> None:
        if self.top_k < 1 or self.max_steps < 1 or self.controller_after < 0 or self.local_retries < 0:
            raise ConfigError("reagent needs top_k >= 1, max_steps >= 1, controller_after >= 0, local_retries >= 0")


@dataclass(frozen=True)
class ReAgentNoBacktrackConfig(ReAgentConfig):
    """ReAgent's settings for the no-backtracking ablation: the same, strictly forward by default."""

    backtrack: bool = setting(False, "backtrack locally and roll back globally on conflicts (off: the ablation)")


class ReAgent:
    """ReAgent: decomposer, retriever, verifier with local backtracking, assembler, supervisor with global
    rollback, controller; every assertion, checkpoint, rollback and message stored on the Run."""

    taxonomy = ReagentError
    trace_sections = SECTIONS  # assertions, rollbacks, messages

    Config = ReAgentConfig

    def __init__(self, config: ReAgentConfig | None = None, /, **settings):
        self.settings = self.Config.of("reagent", config, settings)
        self.top_k = self.settings.top_k
        self.max_steps = self.settings.max_steps
        self.controller_after = self.settings.controller_after
        self.local_retries = self.settings.local_retries
        self.backtrack = self.settings.backtrack
        self.text = self.settings.text
        self.gamma = self.settings.gamma

    def config(self) -> dict:
        return self.settings.as_dict()

    # ------------------------------------------------------------------ the loop
    def run(self, ctx: RunContext, question: str) -> Outcome:
        self._question = question  # a method object answers one question (runner.build_method)
        ledger = ReagentLedger(ctx)
        state = _State()
        ledger.checkpoint("start")
        plan = self._plan(ctx, ledger, ctx.role("reagent_decomposer").decompose(question))
        chain: list[HopState] = []
        stalled = False  # the last hop tried found nothing verifiable: go up, not forward
        while True:
            if not stalled:
                chain, stalled = self._forward(ctx, ledger, state, plan, chain)
            complete = len(chain) == len(plan.subquestions) and bool(chain)
            links = steps.read_chain(ctx, chain)
            assembly = ctx.role("reagent_assembler").assemble(question, links, plan, complete=complete)
            conflicts = ledger.conflicts()
            if complete and chain[-1].answer:
                state.branches.append(list(chain))
            ledger.rounds += 1
            if assembly.ok and not conflicts:
                return self._finish(ctx, ledger, state, plan, chain, "answered", assembly.answer, chain[-1].answer_id,
                                    Verdict(True, None, None, "; ".join(assembly.notes) or "consistent"))
            reason = (f"{conflicts[-1].kind}: {conflicts[-1].detail}" if conflicts else
                      f"{assembly.error_type}: {assembly.escalation}")
            error_type = conflicts[-1].kind if conflicts else assembly.error_type
            ledger.say("reject", "assembler", "supervisor", reason)
            verdict = Verdict(False, assembly.failed_hop or (conflicts[-1].hop if conflicts else None), error_type,
                              reason)
            if not self.backtrack or not steps.room(ctx, self.max_steps):
                answer = assembly.answer if complete else None
                return self._finish(ctx, ledger, state, plan, chain, "unverified" if answer else "no_answer", answer,
                                    chain[-1].answer_id if answer else None, verdict)
            state.conflicts += 1
            ctx.trace.verdict(chain[-1].step_id if chain else state.last_step_id, verdict, ledger.rounds)
            decision = ctx.role("reagent_supervisor").decide(question, conflicts, Claims(ledger))
            if decision.rollback and decision.conflict is not None and state.conflicts <= self.controller_after:
                rolled = self._global_rollback(ctx, ledger, state, chain, decision.conflict, decision.summary)
                if rolled is not None:
                    chain, stalled = rolled
                    continue
            if self._offline_text(ctx) and not all(state.all_stated(b) for b in state.branches or [chain]):
                branch = self._best_branch(ledger, state.branches) if state.branches else chain
                # a chain read off passages (or none): the more evidence a challenge would plan with is
                # links read off passages, which the shared reader reads directly; a challenge cost half a
                # text answer (bench/README.md, text_answer_speed.py)
                read = self._read_text(ctx, state, plan, branch, branch[-1].answer if branch else None)
                if read is not None:
                    ledger.say("inform", "controller", "retriever", f"read the passages: {reason}")
                    end = branch[-1] if branch else None
                    return self._finish(ctx, ledger, state, plan, branch, "unverified", end and end.answer,
                                        end and end.answer_id,
                                        Verdict(False, verdict.failed_hop, error_type,
                                                f"read off passages after {reason}"), agent="controller", read=read)
            controller = ctx.role("reagent_controller")
            move = controller.intervene(question, conflicts=state.conflicts, reason=reason,
                                        challenged=state.challenged, has_branch=bool(state.branches))
            ledger.say("challenge" if move.kind == "challenge" else "inform", "controller", move.target or "all",
                       f"{move.kind}: {move.rationale}")
            if move.kind == "challenge":
                if not state.challenged:
                    state.challenged = True
                    new_plan = ctx.role("reagent_decomposer").challenge(question, plan, reason)
                    if new_plan is not None:
                        ledger.say("inform", "decomposer", "controller", "a new decomposition: "
                                   + " | ".join(new_plan.subquestions))
                        self._replan_rollback(ledger, state, reason)
                        plan = self._plan(ctx, ledger, new_plan)
                        chain, stalled, state.conflicts = [], False, 0
                        continue
                    ledger.say("reject", "decomposer", "controller", "no better decomposition with more evidence")
                    if complete and not conflicts and assembly.answer and assembly.minor:
                        # the challenged assumption held up: more evidence gives no better reading
                        ledger.say("inform", "controller", "assembler", "decomposition confirmed by the challenge")
                        return self._finish(ctx, ledger, state, plan, chain, "answered", assembly.answer,
                                            chain[-1].answer_id, Verdict(True, None, None, "confirmed after "
                                                                         f"a challenge: {reason}"))
                move = controller.intervene(question, conflicts=state.conflicts, reason=reason, challenged=True,
                                            has_branch=bool(state.branches))
                ledger.say("inform", "controller", move.target or "all", f"{move.kind}: {move.rationale}")
            if move.kind in ("override", "challenge") and state.branches:
                best = self._best_branch(ledger, state.branches)
                return self._finish(ctx, ledger, state, plan, best, "unverified", best[-1].answer, best[-1].answer_id,
                                    Verdict(False, verdict.failed_hop, error_type, f"override after {reason}"),
                                    agent="controller")
            if move.kind == "none" and complete:
                return self._finish(ctx, ledger, state, plan, chain, "unverified", assembly.answer,
                                    chain[-1].answer_id, verdict)
            return self._finish(ctx, ledger, state, plan, chain, "no_answer", None, None,
                                Verdict(False, verdict.failed_hop, error_type, f"disclaimed after {reason}"))

    # ------------------------------------------------------------------ decomposition
    def _plan(self, ctx: RunContext, ledger: ReagentLedger, plan: Plan) -> Plan:
        steps.link_topic(ctx, plan)
        for i, sub in enumerate(plan.subquestions, start=1):
            claim = ledger.claim("decomposer", "subquestion", hop=i, slot=f"q{i}", value=sub, text=sub)
            ledger.say("assert", "decomposer", EXECUTION, sub, about=claim)
        ledger.checkpoint("plan")
        ledger.local["verifier"] = ledger.checkpoint("verifier: plan", agent="verifier")
        return plan

    # ------------------------------------------------------------------ execution layer
    def _forward(self, ctx: RunContext, ledger: ReagentLedger, state: "_State", plan: Plan,
                 chain: list[HopState]) -> tuple[list[HopState], bool]:
        """Hops len(chain).. of the plan, each verified (with local backtracking) and checkpointed.

        The flag tells whether it stopped at a gap (a hop with nothing verifiable)."""
        while len(chain) < len(plan.subquestions):
            if not steps.room(ctx, self.max_steps):
                break
            index = len(chain)
            entity_id, entity = (plan.topic_id, plan.topic or "") if index == 0 else (chain[-1].answer_id,
                                                                                      chain[-1].answer or "")
            query = plan.subquestions[index].replace(PLACEHOLDER, entity) if index else plan.subquestions[0]
            if index:
                ledger.claim("retriever", "binding", hop=index + 1, slot=f"hop{index + 1}.entity", value=entity,
                             value_id=entity_id, text=query)
            hop = self._select(ctx, ledger, state, plan, index, query, entity_id, entity,
                               chain[-1].step_id if chain else None)
            hop = self._settle(ctx, ledger, state, hop, chain)
            if hop is None:
                return chain, True
            chain.append(hop)
            ledger.checkpoint(f"hop {hop.hop}")
        return chain, False

    def _select(self, ctx: RunContext, ledger: ReagentLedger, state: "_State", plan: Plan, index: int, query: str,
                entity_id: str | None, entity: str, prev_step_id: str | None) -> HopState:
        """Retriever and verifier on one sub-question: graph facts first, passages read as links if none passes."""
        verifier = ctx.role("reagent_verifier")
        hints = plan.hop_hints(index)
        # read from the ledger only if the verifier looks at them (the offline one does not)
        verified = Claims(ledger, lambda c: c.kind == "fact" and c.status == "accepted")
        ranked = steps.retrieve_hop(ctx, query, entity_id, self.top_k)
        judgements = verifier.verify(query, entity, ranked, hints=hints, verified=verified) if ranked else []
        chosen = steps.best_passing(ranked, judgements)
        source = "graph"
        if chosen is None and self.text and entity_id:
            links = _distinct(ctx.role("reagent_text").candidates(entity_id))
            text_ranked = ctx.retriever.rank(query, links, self.top_k) if links else []
            text_judged = (verifier.verify(query, entity, text_ranked, hints=hints, verified=verified)
                           if text_ranked else [])
            chosen = steps.best_passing(text_ranked, text_judged)
            ranked, judgements, source = ranked + text_ranked, judgements + text_judged, "graph and text"
        ledger.say("inform", "retriever", "verifier", f"{len(ranked)} pieces of evidence ({source}) for: {query}")
        answer_id, answer = chosen.answer_from(entity_id) if chosen is not None else (None, None)
        pending: list[dict] = []
        hop = steps.judged_step(ctx, pending, index, query, entity_id, entity, prev_step_id, ranked, judgements,
                                chosen, answer_id, answer, judge="verifier")
        steps.record(ctx, pending, [hop])
        state.last_step_id = hop.step_id
        return hop

    def _settle(self, ctx: RunContext, ledger: ReagentLedger, state: "_State", hop: HopState,
                chain: list[HopState]) -> HopState | None:
        """The verifier asserts the hop's fact; on a conflict with it, a local rollback and the next candidate."""
        for attempt in range(self.local_retries + 1):
            if hop.fact is None or not hop.answer:
                break
            slot = f"{hop.entity_id}|{hop.fact.relation_id or hop.fact.relation}|{hop.fact.direction}"
            fact_claim = ledger.claim("verifier", "fact", hop=hop.hop, slot=slot, value=hop.answer,
                                      value_id=hop.answer_id, text=f"{hop.fact.head} {hop.fact.relation} "
                                      f"{hop.fact.tail}", evidence=hop.fact, step_id=hop.step_id)
            ledger.say("assert", "verifier", "assembler", f"{hop.query} -> {hop.answer}", about=fact_claim)
            clashes = [c for c in ledger.conflicts() if fact_claim in c.assertion_ids]
            if not clashes:
                ledger.checkpoint(f"verifier: hop {hop.hop}", agent="verifier")
                partial = ledger.claim("assembler", "partial_answer", hop=hop.hop, slot=f"hop{hop.hop}",
                                       value=hop.answer, value_id=hop.answer_id, text=hop.query,
                                       evidence=hop.fact, step_id=hop.step_id)
                ledger.say("inform", "assembler", "supervisor", f"partial answer {hop.hop}: {hop.answer}",
                           about=partial)
                return hop
            clash = clashes[0]
            ledger.say("reject", "verifier", "verifier", f"{clash.kind}: {clash.detail}", about=fact_claim)
            ledger.rounds += 1
            ctx.trace.verdict(hop.step_id, Verdict(False, hop.hop, clash.kind, clash.detail), ledger.rounds)
            if not self.backtrack:
                # forward only: the conflict stays on record and the hop stands
                ledger.claim("assembler", "partial_answer", hop=hop.hop, slot=f"hop{hop.hop}", value=hop.answer,
                             value_id=hop.answer_id, text=hop.query, evidence=hop.fact, step_id=hop.step_id)
                return hop
            if attempt == self.local_retries or not steps.room(ctx, self.max_steps):
                break
            ledger.rollback(kind="local", agent="verifier", checkpoint_id=ledger.local["verifier"], conflict=clash,
                            reason=f"{clash.kind}: {clash.detail}")
            state.backtracks += 1
            hop = self._revise(ctx, state, hop, chain, "local_rollback", f"{clash.kind}: {clash.detail}")
        ledger.claim("verifier", "gap", hop=hop.hop, slot=f"hop{hop.hop}", value=hop.entity, value_id=hop.entity_id,
                     text=f"nothing verifiable answers {hop.query!r}", step_id=hop.step_id)
        ledger.say("reject", "verifier", "supervisor", f"nothing verifiable answers: {hop.query}")
        return None

    def _revise(self, ctx: RunContext, state: "_State", old: HopState, chain: list[HopState], kind: str,
                reason: str) -> HopState:
        """A revision of a hop's step (its pool carried over, its choice discarded): the next stored candidate."""
        prev = chain[old.hop - 2].step_id if old.hop > 1 and len(chain) >= old.hop - 1 else None
        hop = steps.reselect(ctx, old, chain_end_step_id=state.last_step_id or old.step_id, prev_step_id=prev,
                             reason=reason, kind=kind, fallback=False)
        state.last_step_id = hop.step_id
        return hop

    # ------------------------------------------------------------------ supervisory layer
    def _global_rollback(self, ctx: RunContext, ledger: ReagentLedger, state: "_State", chain: list[HopState],
                         conflict: Conflict, summary: str) -> tuple[list[HopState], bool] | None:
        """Roll every agent back to the last checkpoint before the culprit and retry the culprit's hop.

        Returns the chain and whether the retried hop found nothing (None: nothing to retry)."""
        _t, checkpoint_id, label = ledger.checkpoint_before(conflict.culprit_t)
        retracted = ledger.rollback(kind="global", checkpoint_id=checkpoint_id, conflict=conflict, reason=summary)
        ledger.say("inform", "supervisor", "all", f"rollback to {label}: {summary}")
        hops = sorted({r["hop"] for r in retracted if r["kind"] == "fact" and r["hop"]})
        if not hops or hops[0] > len(chain):
            return None
        state.backtracks += 1
        k = hops[0]  # the first hop whose verified fact was retracted is done again
        kept = chain[:k - 1]
        if k > 1:
            ledger.claim("retriever", "binding", hop=k, slot=f"hop{k}.entity", value=kept[-1].answer,
                         value_id=kept[-1].answer_id, text=chain[k - 1].query)
        hop = self._revise(ctx, state, chain[k - 1], kept, "global_rollback", summary)
        hop = self._settle(ctx, ledger, state, hop, kept)
        if hop is None:
            return kept, True
        ledger.checkpoint(f"hop {hop.hop}")
        return [*kept, hop], False

    def _replan_rollback(self, ledger: ReagentLedger, state: "_State", reason: str) -> None:
        """A challenged decomposition replaced: every agent goes back to the start."""
        plan_claims = [c.id for c in ledger.claims() if c.kind == "subquestion" and c.status == "accepted"]
        ledger.rollback(kind="global", checkpoint_id=ledger.checkpoints[0][1], conflict=None, reason=reason,
                        conflict_ids=plan_claims)
        del ledger.checkpoints[1:]  # the old plan's checkpoints hold nothing the new plan can go back to
        state.backtracks += 1

    def _best_branch(self, ledger: ReagentLedger, branches: list[list[HopState]]) -> list[HopState]:
        """The completed branch whose evidence has the most sources behind it (the latest on ties)."""
        support = ledger.support(list({h.fact.id for b in branches for h in b if h.fact is not None}))
        scored = [(sum(support.get(h.fact.id, 0) for h in b if h.fact is not None), i, b)
                  for i, b in enumerate(branches)]
        return max(scored, key=lambda s: (s[0], s[1]))[2]

    # ------------------------------------------------------------------ the end
    def _finish(self, ctx: RunContext, ledger: ReagentLedger, state: "_State", plan: Plan, chain: list[HopState],
                status: str, answer: str | None, answer_id: str | None, verdict: Verdict,
                agent: str = "assembler", read=None) -> Outcome:
        """The final answer: the chain's, unless the passages read (`read`, or read here) say otherwise."""
        if read is None and self._reads_text(ctx, state, chain, answer):
            read = self._read_text(ctx, state, plan, chain, answer)
        if read is not None:
            hop, read_answer, read_id = read
            if hop is None:
                ledger.say("inform", "retriever", "assembler", f"the passages say it too: {read_answer}")
            else:
                chain, status, agent = [*chain, hop], "unverified", "retriever"
                answer, answer_id = read_answer, read_id
                ledger.say("inform", "retriever", "assembler", f"read off passages: {answer}")
        if answer is not None:
            ledger.claim(agent, "final_answer", slot="answer", value=answer, value_id=answer_id,
                         text=verdict.explanation)
        ledger.say("inform", "assembler", "user", f"final answer: {answer}" if answer else "no answer")
        ledger.flush()
        ledger.rounds += 1
        step_id = chain[-1].step_id if chain else state.last_step_id
        return Outcome(chain, status, state.backtracks, list(plan.subquestions),
                       final_verdict=(step_id, verdict, ledger.rounds), answer=answer, answer_id=answer_id,
                       followed=plan)

    def _reads_text(self, ctx: RunContext, state: "_State", chain: list[HopState],
                    answer: str | None = None) -> bool:
        """Whether the offline reader has the last word: a chain of facts an edit or a fact file states keeps
        its answer when it has the asked shape (a graph of facts answers as it always did); a chain that
        rests on facts read off passages, or on none, is read against the passages."""
        if not self._offline_text(ctx):
            return False
        return not state.all_stated(chain) or not fits(answer, ctx.analysis.form)

    def _offline_text(self, ctx: RunContext) -> bool:
        return self.text and ctx.agents.kind == "offline"

    def _read_text(self, ctx: RunContext, state: "_State", plan: Plan, chain: list[HopState],
                   binding: str | None):
        """(hop, answer, answer id) read off passages by the shared offline reader (reagent_read), recorded
        as a passage step after the chain; (None, binding, None) when the passages confirm the chain's
        binding; None if nothing reads (no passage: a graph of facts)."""
        question = self._question
        # the question's own entity anchors the reading: a chain over extracted facts often goes astray,
        # so its bindings only support the spans that name them
        anchor = plan.topic or next((h.answer for h in reversed(chain) if h.answer), None)
        reading = factory.read_answer(ctx.role("text_reader", "offline"), factory.reranker(ctx.services, "offline"),
                                      lambda q, k: steps.retrieve_passages(ctx, q, k), question,
                                      ctx.services.catalog.link_mentions, topic=anchor,
                                      chain=[h.answer for h in chain if h.answer], binding=binding)
        if not reading.answer:
            return None
        if reading.confirms:
            return None, binding, None
        answer, hits = reading.answer, reading.passages
        answer_id = ctx.link(answer)
        chosen = next((h for h in hits if h.passage_id == reading.passage_id), hits[0] if hits else None)
        row = TraceRecorder.step_row(hop=len(chain) + 1, kind="passage", query=question, gamma=self.gamma,
                                     candidates=[candidate_row(h) for h in hits], chosen=chosen,
                                     answer_id=answer_id, answer=answer,
                                     prev_step_id=chain[-1].step_id if chain else None)
        hop = HopState(row["id"], len(chain) + 1, question, None, anchor or "", None, answer_id, answer)
        steps.record(ctx, [row], [hop])
        return hop, answer, answer_id


class ReAgentNoBacktrack(ReAgent):
    """ReAgent without backtracking (the paper's ablation): strictly forward, conflicts only recorded."""

    Config = ReAgentNoBacktrackConfig


@dataclass
class _State:
    conflicts: int = 0
    backtracks: int = 0
    challenged: bool = False
    last_step_id: str | None = None
    branches: list[list[HopState]] = field(default_factory=list)

    @staticmethod
    def stated(fact: CandidateFact | None) -> bool:
        """Does an edit or a fact file state the hop's fact? A link read off a passage is not stated, and
        a fact read back from the trace (a revised hop's) keeps its flag."""
        return fact is not None and fact.kind == "fact" and fact.stated

    def all_stated(self, chain: list[HopState]) -> bool:
        """A chain of facts an edit or a fact file states (not empty)."""
        return bool(chain) and all(self.stated(h.fact) for h in chain)


def _distinct(links: list[CandidateFact]) -> list[CandidateFact]:
    """One link per (passage, end entity): a passage repeating a statement is one piece of evidence."""
    seen, out = set(), []
    for link in links:
        key = (link.id, link.tail_id, link.relation_id)
        if key not in seen:
            seen.add(key)
            out.append(link)
    return out
