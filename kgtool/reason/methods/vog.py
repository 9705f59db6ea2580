"""VoG (Verify-on-Graph): plan the whole chain, verify each step on the graph,
revise the plan with a context scope a UCB bandit picks.

The protocol of the VoG paper (../shared/papers/vog.txt):

1. The plan agent drafts a plan S(0) = [s_1 .. s_T], each step a thought, an
   action (a sub-question), the relation it expects to follow and a predicted
   observation (Section 3.1). Every plan version is stored on the Run.
2. Step t retrieves in two stages (Section 3.2, Appendix A.2): the relations
   of the current entity, scored against the step and cut to a width k in
   [width_min, width_max] that grows with the normalised entropy of the
   scores (Eq. 8); then the facts of the kept relations, their entities
   scored, the top entity_top recorded as the step's candidates and one chosen.
3. The verify agent compares the step with its feedback O_t and gives the
   revision signal V with a confidence (Section 3.3, Eq. 1); an NLI model,
   when configured (nli_model), is a second check.
4. On V = 1 a UCB bandit (Eq. 2) chooses the context scope: local (O_t),
   lookahead (O_t and the relations R_{t+1} one hop further) or global (the
   whole plan and O_{1:t}); the plan agent revises with it, the revised plan
   is re-run from its first changed step through step t and re-verified. The
   reward is the verification gain minus the arm's penalty. A revision is
   accepted once its step verifies with confidence >= accept_threshold; at most
   max_revisions per failed check.
5. Budgets: call_budget agent calls and step_budget recorded steps per answer.

What the loop decides is written as it goes and read back where it is needed:
the bandit's statistics from the run's stored revisions (vog/arm_stats), the
global scope's feedback from its stored steps (vog/feedback), every step the
verifier judges from the graph (steps.read_chain).
"""
from __future__ import annotations

from kgtool.core.configs import PartConfig, setting

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

from kgtool.core.types import CandidateFact, ChainLink, Verdict
from kgtool.errors import ConfigError
from kgtool.reason import bandit, steps
from kgtool.reason.agents.vog_base import (
    Check,
    Observation,
    RelationOption,
    RevisionContext,
    VogPlan,
    nli_check,
    relation_options,
    step_statement,
)
from kgtool.reason.context import BudgetExhausted, HopState, RunContext
from kgtool.reason.methods.base import Outcome
from kgtool.reason.recorders.vog import PLANS, VogRecorder
from kgtool.reason.taxonomy import VogError
from kgtool.reason.trace import TraceRecorder, candidate_row

@dataclass(frozen=True)
class VogConfig(PartConfig):
    """VoG's settings; defaults from the paper (Sections 3.1-3.3, Appendix A.2)."""

    width_min: int = setting(3, "narrowest relation width k per step (Eq. 8: k grows with the scores' entropy)")
    width_max: int = setting(10, "widest relation width k per step")
    entity_top: int = setting(10, "entities of the kept relations recorded as a step's candidates")
    softmax_temperature: float = setting(0.1, "temperature of the softmax whose entropy sets the width")
    ucb_c: float = setting(1.4, "UCB exploration weight c of the context-scope bandit (Eq. 2)")
    penalty_local: float = setting(0.05, "reward penalty of the local context scope")
    penalty_lookahead: float = setting(0.1, "reward penalty of the lookahead context scope")
    penalty_global: float = setting(0.2, "reward penalty of the global context scope")
    lambda_ent: float = setting(0.1, "bandit bonus weight of the retrieval entropy")
    lambda_kg: float = setting(0.1, "bandit bonus weight of KG repetition")
    diversity_window: int = setting(3, "recent revisions over which an often-chosen scope loses credit")
    accept_threshold: float = setting(0.5, "verifier confidence (0..1) at which a revised step is accepted")
    max_revisions: int = setting(4, "revisions tried per failed check")
    call_budget: int = setting(60, "most agent calls per answer")
    step_budget: int = setting(15, "most recorded steps per answer")
    arms: str = setting(",".join(bandit.ARMS), "context scopes the bandit chooses from, comma-separated")
    nli_model: str | None = setting(None, "an NLI model directory or name for a second check of each step (none: off)")
    gamma: float = setting(1.5, "N_eff threshold recorded with each step")

    def check(self) -> None:
        if not 1 <= self.width_min <= self.width_max:
            raise ConfigError(f"vog needs 1 <= width_min <= width_max, got {self.width_min} and {self.width_max}")
        if self.softmax_temperature <= 0:
            raise ConfigError(f"vog softmax_temperature must be > 0, got {self.softmax_temperature}")
        if not 0.0 <= self.accept_threshold <= 1.0:
            raise ConfigError(f"vog accept_threshold is a confidence in 0..1, got {self.accept_threshold}")
        if self.max_revisions < 0:
            raise ConfigError(f"vog max_revisions must be >= 0, got {self.max_revisions}")
        for name in ("entity_top", "call_budget", "step_budget"):
            _positive(name, getattr(self, name))
        _arms(self.arms)


T = TypeVar("T")


@dataclass
class _Executed:
    """One run of a plan step: what it retrieved, what it chose, what the verifier said."""

    hop: HopState
    observation: Observation
    check: Check


@dataclass
class _Candidate:
    """A revised plan and the chain it produced up to the failed step."""

    plan: VogPlan
    version: int
    chain: list[_Executed]
    reached: bool  # the chain got through the failed step and it verified
    confidence: float


@dataclass
class _State:
    """One answer's counters; the reasoning state itself is in the graph (through `record`)."""

    ctx: RunContext
    call_budget: int
    record: VogRecorder
    versions: int = 0
    revisions: int = 0
    rounds: int = 0
    attempts: dict[int, int] = field(default_factory=dict)  # hop index -> attempts so far
    rejected: set[str] = field(default_factory=set)  # fact ids a failed check chose
    answers: list[str | None] = field(default_factory=list)  # every plan version's predicted answer
    unverified: bool = False

    def call(self, fn: Callable[[], T]) -> T:
        """One agent call, charged to the answer's call budget."""
        return steps.agent_call(self.ctx, self.call_budget, fn)


class Vog:
    """VoG: plan, verify each step on the graph, revise with a UCB bandit over local/lookahead/global context."""

    taxonomy = VogError
    trace_sections = (PLANS,)

    Config = VogConfig

    def __init__(self, config: VogConfig | None = None, /, **settings):
        self.settings = cfg = VogConfig.of("vog", config, settings)
        self.width_min, self.width_max = cfg.width_min, cfg.width_max
        self.entity_top = cfg.entity_top
        self.softmax_temperature = cfg.softmax_temperature
        self.penalties = {"local": cfg.penalty_local, "lookahead": cfg.penalty_lookahead, "global": cfg.penalty_global}
        # the per-arm penalties also weigh the diversity prior: an arm chosen often lately loses credit
        self.selector = bandit.SelectorConfig(c=cfg.ucb_c, lambda_ent=cfg.lambda_ent, lambda_kg=cfg.lambda_kg,
                                              window=cfg.diversity_window, diversity=dict(self.penalties))
        self.accept_threshold = cfg.accept_threshold
        self.max_revisions = cfg.max_revisions
        self.call_budget = cfg.call_budget
        self.step_budget = cfg.step_budget
        self.arms = _arms(cfg.arms)
        self.nli_model = cfg.nli_model or None
        self.gamma = cfg.gamma

    def config(self) -> dict:
        return self.settings.as_dict()

    # ------------------------------------------------------------------ the loop
    def run(self, ctx: RunContext, question: str) -> Outcome:
        state = _State(ctx, self.call_budget, VogRecorder(ctx))
        plan = state.call(lambda: self.draft_plan(ctx, question))
        steps.link_topic(ctx, plan)
        version = self._store_plan(ctx, state, plan, parent=None, arm=None, reason="initial plan")
        chain: list[_Executed] = []
        try:
            i = 0
            while i < len(plan.steps):
                done = self._execute(ctx, state, question, plan, version, i, chain)
                if not done.check.consistent:
                    revised = self._revise(ctx, state, question, plan, version, i, chain, done)
                    if revised is not None:
                        plan, version, chain = revised.plan, revised.version, revised.chain
                        i = len(chain)
                        continue
                    state.unverified = True  # no revision verified: go on with the step as the graph gave it
                chain.append(done)
                if done.observation.chosen is None:
                    break  # a dead end nothing got past
                i += 1
        except BudgetExhausted:  # VoG's own budgets, or the run-wide max_steps setting
            state.unverified = True
        return self._outcome(ctx, state, plan, chain)

    def draft_plan(self, ctx: RunContext, question: str) -> VogPlan:
        """The plan agent's first plan S(0) (a subclass may draft it otherwise, e.g. to study revisions)."""
        return ctx.role("vog_planner").plan(question)

    # ------------------------------------------------------------ one step
    def _execute(self, ctx: RunContext, state: _State, question: str, plan: VogPlan, version: int, index: int,
                 chain: list[_Executed]) -> _Executed:
        """Retrieve, record and verify step `index` of `plan` after `chain[:index]`."""
        if not steps.room(ctx, self.step_budget):
            raise BudgetExhausted(f"vog: the answer recorded its {self.step_budget} steps")
        step = plan.steps[index]
        prev = chain[index - 1].hop if index else None
        entity_id = prev.answer_id if prev else plan.topic_id
        entity = (prev.answer or "") if prev else (plan.topic or "")
        query = step.query(entity)
        retriever = ctx.role("vog_retriever")
        # stage 1: the entity's relations, scored, cut to the entropy-adaptive width
        options = relation_options(steps.retrieve_hop(ctx, query, entity_id, None))
        if options:
            for opt, score in zip(options, retriever.score_relations(question, step, query, entity, options)):
                opt.score = float(score)
            options.sort(key=lambda o: (-o.score, o.label, o.direction))
        width, entropy = bandit.adaptive_width([o.score for o in options], self.width_min, self.width_max,
                                               self.softmax_temperature)
        kept = options[:width]
        selected = state.call(lambda: retriever.select_relations(question, step, query, entity, kept)) if kept else []
        # stage 2: the entities the kept relations lead to, scored; the top entity_top become candidates
        facts = [f for opt in selected for f in opt.scored_facts()]
        candidates: list[CandidateFact] = []
        if facts:
            for fact, score in zip(facts, retriever.score_entities(question, step, query, entity, facts)):
                fact.scores["entity"] = float(score)
                fact.score = float(score)
            facts.sort(key=lambda f: (-f.score, f.rank, f.fact_id))
            candidates = facts[:self.entity_top]
            for rank, fact in enumerate(candidates, start=1):
                fact.rank = rank
        chosen = state.call(lambda: retriever.select_entity(question, step, query, entity, candidates)) \
            if candidates else None
        answer_id, answer = chosen.answer_from(entity_id or "") if chosen is not None else (None, None)
        attempt = state.attempts.get(index, -1) + 1
        state.attempts[index] = attempt
        row = TraceRecorder.step_row(
            hop=index + 1, attempt=attempt, query=query, entity_id=entity_id, entity=entity, gamma=self.gamma,
            prev_step_id=prev.step_id if prev else None, chosen=chosen, answer_id=answer_id, answer=answer,
            # rows in fact-id order: concurrent answers then lock shared Fact nodes in one order (no deadlock)
            candidates=[candidate_row(c) for c in sorted(candidates, key=lambda c: c.fact_id)])
        hop = HopState(row["id"], index + 1, query, entity_id, entity, chosen, answer_id, answer)
        # the step is written and read back from the graph in one round trip; the verifier judges what was stored
        links = steps.record_and_read_chain(ctx, [row], [hop], [hop])
        observation = Observation(entity_id, entity, options, width, entropy, selected, candidates, chosen)
        visited = [plan.topic_id or ""] + [e.hop.answer_id or "" for e in chain[:index]]
        check = self._verify(ctx, state, question, plan, version, index, hop, links[0] if links else None,
                             observation, visited)
        if not check.consistent and chosen is not None and check.error_type != VogError.HALLUCINATED_FACT:
            # a wrong prediction is the plan's fault, not the fact's: the graph is the authority
            state.rejected.add(chosen.fact_id)
        return _Executed(hop, observation, check)

    def _verify(self, ctx: RunContext, state: _State, question: str, plan: VogPlan, version: int, index: int,
                hop: HopState, link: ChainLink | None, obs: Observation, visited: list[str]) -> Check:
        """Verify the step as the graph stores it (`link`, plus NLI); store the verdict with its confidence."""
        verifier = ctx.role("vog_verifier")
        check = state.call(lambda: verifier.verify(question, plan, index, link, obs, visited))
        self._nli(plan, index, link, check)
        state.rounds += 1
        verdict = Verdict(check.consistent, None if check.consistent else index + 1, check.error_type,
                          check.reason[:500], guidance=check.revised_observation or "")
        verdict_id = ctx.trace.verdict(hop.step_id, verdict, state.rounds)
        state.record.verification(verdict_id=verdict_id, step_id=hop.step_id, version=version, check=check,
                                  observation=obs)
        return check

    def _nli(self, plan: VogPlan, index: int, link, check: Check) -> None:
        """The second check (the paper's DeBERTa-MNLI verifier), when a model is configured."""
        nli = nli_check(self.nli_model)
        if nli is None or link is None or not (link.evidence or "").strip():
            return
        step = plan.steps[index]
        claim = step_statement(step, link.entity_in, link.answer)
        probs = nli.probabilities(link.evidence, claim)
        check.checks["nli_contradiction"] = probs["contradiction"]
        check.checks["nli_entailment"] = probs["entailment"]
        if check.consistent and probs["contradiction"] > 0.5 and probs["contradiction"] > probs["entailment"]:
            check.consistent = False
            check.error_type = VogError.HALLUCINATED_FACT.value
            check.reason = f"the NLI model finds the evidence contradicts {claim!r}"
            check.confidence = min(check.confidence, 1.0 - probs["contradiction"])

    # ------------------------------------------------------------ revision
    def _revise(self, ctx: RunContext, state: _State, question: str, plan: VogPlan, version: int, index: int,
                prefix: list[_Executed], failed: _Executed) -> _Candidate | None:
        """Up to max_revisions bandit-chosen revisions of a failed step: the first accepted, else the best
        that verified, else None."""
        best: _Candidate | None = None
        base_plan, base_version, base = plan, version, failed
        for _ in range(self.max_revisions):
            choice = self._choose_arm(ctx, state, index, len(base_plan.steps), base.check)
            context = RevisionContext(choice.arm, question, base_plan, index, base.check, base.observation,
                                      rejected=set(state.rejected))
            if choice.arm == "lookahead":
                context.lookahead = self._lookahead(ctx, base.observation)
            elif choice.arm == "global":
                context.feedback = state.record.feedback(max_hop=index + 1, per_step=3)
            reviser = ctx.role("vog_reviser")
            revised = state.call(partial(reviser.revise, context))
            steps.link_topic(ctx, revised, fallback=base_plan.topic_id)
            reason = f"{base.check.error_type}: {base.check.reason}"
            new_version = self._store_plan(ctx, state, revised, parent=base_version, arm=choice.arm, reason=reason)
            changed = _first_change(base_plan, revised)
            chain: list[_Executed] = []
            last = first_new = None
            if changed < max(len(base_plan.steps), len(revised.steps)) and revised.steps:
                # re-run the revised plan from its first changed step through the failed one
                start = min(changed, index, len(revised.steps) - 1)
                chain = list(prefix[:start])
                for j in range(start, min(index, len(revised.steps) - 1) + 1):
                    last = self._execute(ctx, state, question, revised, new_version, j, chain)
                    chain.append(last)
                    first_new = first_new or last
                    if not last.check.consistent or last.observation.chosen is None:
                        break
            after = last.check if last is not None else base.check
            reached = last is not None and after.consistent and (
                len(chain) == index + 1 or len(chain) == len(revised.steps))
            gain = after.confidence - base.check.confidence if last is not None else 0.0
            reward = gain - self.penalties[choice.arm]
            accepted = reached and after.confidence >= self.accept_threshold
            self._store_revision(ctx, state, choice, reward, gain, accepted, base, after, base_version,
                                 new_version, index, first_new)
            if last is None:
                continue  # the reviser changed nothing: another arm may
            candidate = _Candidate(revised, new_version, chain, reached, after.confidence)
            if accepted:
                return candidate
            if reached and (best is None or candidate.confidence > best.confidence):
                best = candidate
            if len(chain) == index + 1 and not after.consistent:
                base_plan, base_version, base = revised, new_version, last  # revise on from the newer failure
        return best

    def _choose_arm(self, ctx: RunContext, state: _State, index: int, depth: int, check: Check) -> bandit.Choice:
        """UCB over the arms, with the statistics read back from this run's stored revisions."""
        stats = {r["arm"]: bandit.ArmStats(r["n"], r["reward"], r["recent"])
                 for r in state.record.arm_stats(self.selector.window)}
        return bandit.select_arm(stats, arms=self.arms, entropy=bandit.answer_entropy(state.answers), step=index + 1,
                                 expected_depth=max(1, depth), repeated=check.repeated, cfg=self.selector)

    def _lookahead(self, ctx: RunContext, obs: Observation) -> dict[str, list[tuple[str, str, str]]]:
        """R_{t+1}: the relations reachable from each candidate entity (one read for all of them)."""
        ends = list(dict.fromkeys(obs.end(c)[0] for c in obs.candidates if obs.end(c)[0]))
        if not ends:
            return {}
        pools = steps.neighbour_pools(ctx, ends)
        out: dict[str, list[tuple[str, str, str]]] = {}
        for entity_id, facts in pools.items():
            # the way back to the current entity is no step forward
            forward = [f for f in facts if obs.entity_id not in (f.head_id, f.tail_id)]
            out[entity_id] = [(o.key, o.label, o.direction) for o in relation_options(forward)]
        return out

    # ------------------------------------------------------------ storage
    def _store_plan(self, ctx: RunContext, state: _State, plan: VogPlan, *, parent: int | None, arm: str | None,
                    reason: str) -> int:
        version = state.versions
        state.versions += 1
        state.answers.append(plan.final_answer())
        state.record.plan(plan, version=version, parent=parent, arm=arm, reason=reason)
        return version

    def _store_revision(self, ctx: RunContext, state: _State, choice: bandit.Choice, reward: float, gain: float,
                        accepted: bool, base: _Executed, after: Check, from_version: int, to_version: int,
                        index: int, first_new: _Executed | None) -> None:
        state.revisions += 1
        revision = {
            "seq": state.revisions, "hop": index + 1, "arm": choice.arm, "reward": float(reward), "gain": float(gain),
            "penalty": self.penalties[choice.arm], "accepted": bool(accepted), "error_type": base.check.error_type,
            "confidence_before": float(base.check.confidence), "confidence_after": float(after.confidence),
            "answer_entropy": float(choice.entropy), "depth": float(choice.depth), "repeated": bool(base.check.repeated),
            **{f"ucb_{a}": float(s) for a, s in choice.scores.items()},  # +inf: an arm not tried yet
            "ucb_terms": json.dumps(choice.bonuses, default=str),
        }
        first = first_new.hop.step_id if first_new is not None else None
        # the failed step is revised as the new plan's step of the same hop, when the new plan got that far
        same_hop = first_new is not None and first_new.hop.hop == base.hop.hop
        state.record.revision(revision, from_version=from_version, to_version=to_version,
                              failed_step_id=base.hop.step_id, revised_step_id=first if same_hop else None,
                              first_new_step_id=first,
                              reason=f"{choice.arm}: {base.check.error_type}: {base.check.reason}")

    # ------------------------------------------------------------ the end
    def _outcome(self, ctx: RunContext, state: _State, plan: VogPlan, chain: list[_Executed]) -> Outcome:
        hops = [e.hop for e in chain]
        actions = [s.action for s in plan.steps]
        if len(chain) == len(plan.steps) and chain and chain[-1].hop.answer:
            return Outcome(hops, "unverified" if state.unverified else "answered", state.revisions, actions)
        # the chain stopped short: the plan's guess is never reported as the answer (it may be a model's
        # memory, or template text it copied); the stored plan still shows what it predicted
        return Outcome(hops, "no_answer", state.revisions, actions)


def _first_change(old: VogPlan, new: VogPlan) -> int:
    """The first step whose action, relation, direction or prediction differs (a new topic changes step 0);
    max(len) when nothing changed."""
    if (old.topic_id or old.topic) != (new.topic_id or new.topic):
        return 0
    for k, (a, b) in enumerate(zip(old.steps, new.steps)):
        if (a.action, a.relation, a.direction, a.expected) != (b.action, b.relation, b.direction, b.expected):
            return k
    if len(old.steps) != len(new.steps):
        return min(len(old.steps), len(new.steps))
    return max(len(old.steps), len(new.steps))


def _positive(name: str, value) -> int:
    number = int(value)
    if number < 1:
        raise ConfigError(f"vog {name} must be >= 1, got {value!r}")
    return number


def _arms(value: Sequence[str] | str) -> tuple[str, ...]:
    names = [a.strip() for a in (value.split(",") if isinstance(value, str) else value) if a and a.strip()]
    unknown = [a for a in names if a not in bandit.ARMS]
    if unknown or not names:
        raise ConfigError(f"vog arms must be a non-empty subset of {','.join(bandit.ARMS)}; got {value!r}")
    return tuple(dict.fromkeys(names))


__all__ = ["RelationOption", "Vog"]
