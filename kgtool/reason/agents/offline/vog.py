"""VoG's four roles without an LLM: plan, retrieve, verify, revise.

The plan agent is the offline planner's graph-guided relation path turned
into VoG steps (thought, action, expected relation, predicted observation).
The retrieve agent scores relations and entities with the relation matcher
(MiniLM embeddings plus word overlap), standing in for the paper's
Sentence-BERT similarities. The verifier checks a step structurally against
what it retrieved: the planned relation is there and was followed, the step's
relation serves a part of the question no other step accounts for, the
predicted observation is the entity reached, the evidence names both ends
(and, when a model is configured, an NLI model does not see a contradiction).
The reviser honours the context scope the bandit chose:

- local: only the failing step's feedback O_t (take the graph's entity, or
  another retrieved relation that serves the step's part of the question);
- lookahead: O_t plus the relations R_{t+1} reachable from each candidate
  entity (prefer the candidate from which the next planned relation goes on,
  and extend the plan when a reachable relation explains words no step does);
- global: the whole question again: the offline planner searches a path over
  the graph without the facts the checks rejected.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgtool.core.types import PLACEHOLDER, CandidateFact, ChainLink
from kgtool.reason.agents.offline.common import (
    GraphView,
    OfflinePlan,
    Thresholds,
    _Mentions,
    _Profiles,
    _subquestion_analysis,
    same_name,
)
from kgtool.reason.agents.offline.planner import OfflinePlanner, subquestion_for
from kgtool.reason.agents.vog_base import (
    Check,
    Observation,
    PlanStep,
    RelationOption,
    RevisionContext,
    VogPlan,
    fact_key,
)
from kgtool.reason.relmatch import RelationMatcher, TextAnalysis
from kgtool.reason.taxonomy import VogError
from kgtool.reason.offline_config import OFFLINE


class _Shared:
    """Profiles, mention tests and the question's word analysis, shared by the four roles of one answer."""

    def __init__(self, view: GraphView, matcher: RelationMatcher, thresholds: Thresholds, claim: float = 0.5):
        self.view = view
        self.matcher = matcher
        self.thresholds = thresholds
        self.claim = claim
        self.profiles = _Profiles(view, matcher)
        self.mentions = _Mentions(view)
        self._questions: dict[str, TextAnalysis] = {}
        # steps (by id) whose relation the planner read from a phrase of the question it fits
        self.phrase_read: set[int] = set()

    def question(self, question: str) -> TextAnalysis:
        """The question's words with its entity mentions cut out (what relations may explain)."""
        if question not in self._questions:
            spans = [(s, e) for s, e, _eid, _surface in self.view.link_mentions(question)]
            self._questions[question] = self.matcher.analyse(question, exclude=spans, whole=False)
        return self._questions[question]

    def token_scores(self, analysis: TextAnalysis, key: str, label: str, direction: str | None) -> np.ndarray:
        scores = self.matcher.token_scores(analysis, self.profiles.of(key, label))
        return scores * self.thresholds.reverse_factor if direction == "in" else scores

    def similarity(self, key: str, label: str, direction: str, step: PlanStep) -> float:
        """How close a relation is to the one the step planned (0 when the step names none)."""
        if not step.relation:
            return 0.0
        # a planned relation is a graph key (offline plans) or a label; `of` handles both without a label
        sim = self.matcher.relation_similarity(self.profiles.of(key, label), self.profiles.of(step.relation))
        return sim * self.thresholds.reverse_factor if step.direction and direction != step.direction else sim

    def free_tokens(self, question: str, plan: VogPlan, index: int) -> tuple[TextAnalysis, np.ndarray]:
        """The question's words that no other step of the plan explains (True where free)."""
        analysis = self.question(question)
        free = np.ones(analysis.size, dtype=bool)
        for j, step in enumerate(plan.steps):
            if j != index and step.relation:
                free &= self.token_scores(analysis, step.relation, "", step.direction) < self.claim
        return analysis, free

    def fit_free(self, analysis: TextAnalysis, free: np.ndarray, key: str, label: str, direction: str) -> float:
        if not free.any():
            return 0.0
        return float(self.token_scores(analysis, key, label, direction)[free].max())

    def step_for(self, key: str, label: str, direction: str, entity: str | None, expected: str | None) -> PlanStep:
        prof = self.profiles.of(key, label)
        action = subquestion_for(prof, entity or PLACEHOLDER, direction)
        return PlanStep(thought=f"I need the {prof.label or label or key} of {entity or 'the previous answer'}.",
                        action=action, relation=key, direction=direction, expected=expected)


def to_vog_plan(shared: _Shared, plan: OfflinePlan) -> VogPlan:
    """The offline planner's path as VoG steps; the path's entities are the predicted observations."""
    if not plan.relations:
        return VogPlan([PlanStep(thought="I have to search for the whole question.", action=plan.subquestions[0])],
                       plan.topic, plan.topic_id)
    steps = []
    for i, (key, direction) in enumerate(zip(plan.relations, plan.directions)):
        expected = shared.view.entity_name(plan.entities[i]) if i < len(plan.entities) else None
        step = shared.step_for(key, "", direction, plan.topic if i == 0 else None, expected)
        step.action = plan.subquestions[i]
        steps.append(step)
        if i < len(plan.phrase_read) and plan.phrase_read[i]:
            shared.phrase_read.add(id(step))
    return VogPlan(steps, plan.topic, plan.topic_id)


class OfflineVogPlanner:
    def __init__(self, shared: _Shared, planner: OfflinePlanner):
        self.shared = shared
        self.planner = planner

    def plan(self, question: str) -> VogPlan:
        return to_vog_plan(self.shared, self.planner.plan(question))


class OfflineVogRetriever:
    """Relation scores: closeness to the planned relation or fit to the step's sub-question, whichever is
    higher; entity scores: the relation's score, agreement with the predicted observation, grounding."""

    def __init__(self, shared: _Shared):
        self.shared = shared

    def score_relations(self, question: str, step: PlanStep, query: str, entity: str,
                        options: Sequence[RelationOption]) -> list[float]:
        out = []
        for opt in options:
            analysis = _subquestion_analysis(self.shared.matcher, self.shared.mentions, query, entity, opt.facts[:1])
            fit = self.shared.matcher.fit(analysis, self.shared.profiles.of(opt.key, opt.label))
            fit *= self.shared.thresholds.reverse_factor if opt.direction == "in" else 1.0
            out.append(round(max(fit, self.shared.similarity(opt.key, opt.label, opt.direction, step)), 6))
        return out

    def select_relations(self, question: str, step: PlanStep, query: str, entity: str,
                         options: Sequence[RelationOption]) -> list[RelationOption]:
        return list(options)  # the entropy-adaptive width already cut the list; no model to narrow it further

    def score_entities(self, question: str, step: PlanStep, query: str, entity: str,
                       facts: Sequence[CandidateFact]) -> list[float]:
        out = []
        for fact in facts:
            _end_id, end = fact.answer_from("")  # the direction says which end the step reaches
            predicted = 1.0 if step.expected and same_name(step.expected, end) else 0.0
            text = fact.evidence or ""
            grounded = min(self.shared.mentions.support(text, fact.head_id, fact.head),
                           self.shared.mentions.support(text, fact.tail_id, fact.tail)) if text else 0.0
            out.append(round(OFFLINE.vog_relation_weight * fact.scores.get("relation", 0.0)
                             + OFFLINE.vog_predicted_weight * predicted + OFFLINE.vog_grounded_weight * grounded, 6))
        return out

    def select_entity(self, question: str, step: PlanStep, query: str, entity: str,
                      candidates: Sequence[CandidateFact]) -> CandidateFact | None:
        return candidates[0] if candidates else None


class OfflineVogVerifier:
    """Structural and relation-fit checks of one step against its feedback, in a fixed order."""

    def __init__(self, shared: _Shared, improve: float = OFFLINE.vog_drift):
        self.shared = shared
        self.improve = improve

    def verify(self, question: str, plan: VogPlan, index: int, link: ChainLink | None, observation: Observation,
               visited: Sequence[str]) -> Check:
        step = plan.steps[index]
        if link is None or link.fact is None or observation.chosen is None:
            why = f"the graph holds no fact of {observation.entity or 'the topic'!r} for this step"
            return Check(False, 0.0, VogError.INCOMPLETE_EVIDENCE.value, why, checks={"evidence": 0.0})
        fact = link.fact
        sh = self.shared
        end_id, end = observation.end(observation.chosen)
        checks: dict[str, float] = {"evidence": 1.0}
        problems: list[tuple[str, str]] = []

        # the planned relation: present among the entity's relations, and followed
        if step.relation:
            sim = sh.similarity(fact_key(fact), fact.relation, fact.direction, step)
            checks["relation"] = round(sim, 4)
            if sim < sh.thresholds.same_relation:
                present = any(sh.similarity(o.key, o.label, o.direction, step) >= sh.thresholds.same_relation
                              for o in observation.relations)
                kind = VogError.INTENT_DRIFT if present else VogError.INCOMPLETE_EVIDENCE
                problems.append((kind.value, f"the step planned {step.relation!r} but followed {fact.relation!r}"
                                 + ("" if present else f"; {observation.entity!r} has no such relation")))
        # the step's relation serves the part of the question no other step explains
        analysis, free = sh.free_tokens(question, plan, index)
        own = sh.fit_free(analysis, free, fact_key(fact), fact.relation, fact.direction)
        best_other, other_label = 0.0, ""
        for opt in observation.selected:
            if opt.key == fact_key(fact) and opt.direction == fact.direction:
                continue
            fit = sh.fit_free(analysis, free, opt.key, opt.label, opt.direction)
            if fit > best_other:
                best_other, other_label = fit, opt.label
        checks["question_fit"] = round(own, 4)
        drift = best_other >= sh.claim and best_other - own >= self.improve
        if drift and id(step) in sh.phrase_read and step.relation == fact_key(fact):
            # the planner read this relation from a whole phrase of the question ("the seat of
            # government": capital); that another relation shares one of its words ("government")
            # is no drift from it
            drift = False
        if drift:
            problems.append((VogError.INTENT_DRIFT.value, (f"{fact.relation!r} serves the question less than "
                                                           f"{other_label!r} ({own:.2f} vs {best_other:.2f})")))
        # the predicted observation
        agree = 1.0
        if step.expected and not same_name(step.expected, end):
            agree = 0.0
            elsewhere = any(same_name(step.expected, observation.end(c)[1]) for c in observation.candidates)
            kind = VogError.ENTITY_DISAMBIGUATION if elsewhere else VogError.HALLUCINATED_FACT
            problems.append((kind.value, f"predicted {step.expected!r} but the graph gives {end!r}"))
        checks["observation"] = agree
        # grounding: the evidence names both ends
        text = link.evidence or fact.evidence or ""
        grounded = min(sh.mentions.support(text, fact.head_id, fact.head),
                       sh.mentions.support(text, fact.tail_id, fact.tail)) if text else 0.0
        checks["grounding"] = round(grounded, 4)
        repeated = end_id in visited
        relation_score = checks.get("relation", 1.0 if not drift else own)
        confidence = (OFFLINE.check_relation_weight * min(1.0, relation_score) + OFFLINE.check_agree_weight * agree
                      + OFFLINE.check_grounded_weight * grounded
                      + OFFLINE.check_intent_weight * (1.0 if not drift else own)) \
            * (OFFLINE.check_repeated if repeated else 1.0)
        if problems:
            kind, why = problems[0]
            return Check(False, round(min(confidence, OFFLINE.check_failed_cap), 4), kind,
                         "; ".join(w for _, w in problems),
                         revised_observation=end, checks=checks, repeated=repeated)
        return Check(True, round(confidence, 4), None, f"{fact.head} {fact.relation} {fact.tail} supports the step",
                     checks=checks, repeated=repeated)


class _Without:
    """A graph view that no longer shows some facts (the ones the checks rejected)."""

    def __init__(self, view: GraphView, banned: set[str]):
        self.view = view
        self.banned = banned

    def neighborhoods(self, entity_ids, per_group: int):
        pools = self.view.neighborhoods(entity_ids, per_group)
        return {e: [f for f in facts if f.fact_id not in self.banned] for e, facts in pools.items()}

    def link_mentions(self, text: str):
        return self.view.link_mentions(text)

    def entity_name(self, entity_id: str) -> str:
        return self.view.entity_name(entity_id)

    def relation_phrases(self, relation_key: str) -> list[str]:
        return self.view.relation_phrases(relation_key)


class OfflineVogReviser:
    """Revises the plan from the failing step with the context the chosen arm allows."""

    def __init__(self, shared: _Shared, planner_options: dict | None = None):
        self.shared = shared
        self.planner_options = planner_options or {}

    def revise(self, context: RevisionContext) -> VogPlan:
        if context.arm == "global":
            return self._global(context)
        if context.arm == "lookahead":
            return self._lookahead(context)
        return self._local(context)

    # -- local: O_t only ---------------------------------------------------
    def _local(self, ctx: RevisionContext) -> VogPlan:
        plan, i, obs = ctx.plan.copy(), ctx.index, ctx.observation
        chosen = obs.chosen
        if (ctx.check.error_type in (VogError.HALLUCINATED_FACT, VogError.ENTITY_DISAMBIGUATION)
                and chosen is not None and chosen.fact_id not in ctx.rejected and ctx.check.revised_observation):
            # the relation was right, the prediction was not: take what the graph says
            plan.steps[i].expected = ctx.check.revised_observation
            return _clear_after(plan, i)
        analysis, free = self.shared.free_tokens(ctx.question, plan, i)
        failed = (chosen.relation_id or chosen.relation, chosen.direction) if chosen is not None else None
        best: tuple[float, RelationOption, CandidateFact] | None = None
        for opt in obs.selected:
            facts = [f for f in _ranked_facts(obs, opt) if f.fact_id not in ctx.rejected]
            if not facts or (failed and (opt.key, opt.direction) == failed and ctx.check.error_type in (
                    VogError.INTENT_DRIFT, VogError.INCOMPLETE_EVIDENCE)):
                continue
            score = (self.shared.fit_free(analysis, free, opt.key, opt.label, opt.direction)
                     + OFFLINE.vog_option_weight * opt.score)
            if best is None or score > best[0]:
                best = (score, opt, facts[0])
        if best is None:
            return plan
        _, opt, fact = best
        entity = obs.entity if i == 0 else None
        new = self.shared.step_for(opt.key, opt.label, opt.direction, entity, obs.end(fact)[1])
        if i == 0:
            new.action = new.action.replace(PLACEHOLDER, obs.entity)
        plan.steps[i] = new
        return _clear_after(plan, i)

    # -- lookahead: O_t and R_{t+1} ------------------------------------------
    def _lookahead(self, ctx: RevisionContext) -> VogPlan:
        plan, i, obs = ctx.plan.copy(), ctx.index, ctx.observation
        sh = self.shared
        analysis, free = sh.free_tokens(ctx.question, plan, i)
        nxt = plan.steps[i + 1] if i + 1 < len(plan.steps) else None
        # words no step of the plan explains: what a longer plan would have to cover
        unexplained = np.ones(analysis.size, dtype=bool)
        for step in plan.steps:
            if step.relation:
                unexplained &= sh.token_scores(analysis, step.relation, "", step.direction) < sh.claim
        by_key = {(o.key, o.direction): o for o in obs.relations}
        best = None
        for fact in obs.candidates:
            if fact.fact_id in ctx.rejected:
                continue
            opt = by_key.get((fact_key(fact), fact.direction))
            label = opt.label if opt else fact.relation
            here = sh.fit_free(analysis, free, fact_key(fact), label, fact.direction)
            if nxt is not None and nxt.relation and sh.similarity(fact_key(fact), label, fact.direction, nxt) >= \
                    sh.thresholds.same_relation:
                continue  # taking the next step's relation here would skip a hop
            end_id, end = obs.end(fact)
            ahead, ahead_rel = 0.0, None
            for key, rlabel, direction in ctx.lookahead.get(end_id, []):
                if nxt is not None and nxt.relation:
                    value = sh.similarity(key, rlabel, direction, nxt)
                else:
                    value = sh.fit_free(analysis, unexplained, key, rlabel, direction)
                if value > ahead:
                    ahead, ahead_rel = value, (key, rlabel, direction)
            score = here + ahead + OFFLINE.vog_fact_weight * fact.score
            if best is None or score > best[0]:
                best = (score, fact, label, end, ahead, ahead_rel)
        if best is None:
            return plan
        _, fact, label, end, ahead, ahead_rel = best
        new = sh.step_for(fact_key(fact), label, fact.direction, obs.entity if i == 0 else None, end)
        if i == 0:
            new.action = new.action.replace(PLACEHOLDER, obs.entity)
        plan.steps[i] = new
        plan = _clear_after(plan, i)
        if ahead_rel is not None:
            key, rlabel, direction = ahead_rel
            if nxt is not None and ahead >= sh.thresholds.same_relation:
                plan.steps[i + 1] = sh.step_for(key, rlabel, direction, None, None)
            elif nxt is None and ahead >= sh.claim:
                plan.steps.append(sh.step_for(key, rlabel, direction, None, None))  # reason one hop further
        return plan

    # -- global: the whole plan again, over the graph without rejected facts ----
    def _global(self, ctx: RevisionContext) -> VogPlan:
        sh = self.shared
        banned = set(ctx.rejected) | {row["fact_id"] for row in ctx.feedback
                                      if row.get("chosen") and row.get("valid") is False and row.get("fact_id")}
        planner = OfflinePlanner(_Without(sh.view, banned), sh.matcher, thresholds=sh.thresholds,
                                 **self.planner_options)
        fresh = to_vog_plan(sh, planner.plan(ctx.question))
        if not any(s.relation for s in fresh.steps):
            return ctx.plan.copy()
        return fresh


def _ranked_facts(obs: Observation, opt: RelationOption) -> list[CandidateFact]:
    """An option's facts, the ones the entity scoring ranked first."""
    ranked = [c for c in obs.candidates if fact_key(c) == opt.key and c.direction == opt.direction]
    seen = {c.fact_id for c in ranked}
    return ranked + [f for f in opt.facts if f.fact_id not in seen]


def _clear_after(plan: VogPlan, index: int) -> VogPlan:
    """Later predictions hang on the revised step's entity: leave them open."""
    for step in plan.steps[index + 1:]:
        step.expected = None
    plan.answer = None
    return plan


# ------------------------------------------------------------------ factories (ROLES)
# Each receives the answer's RoleEnv; "vog_shared" is built once per answer (env.role caches it),
# so the four roles share relation profiles, mention tests and the question's analysis.


def shared(env) -> _Shared:
    return _Shared(env.graph.view, env.services.matcher, Thresholds.from_settings(env.services.settings))


def planner(env) -> OfflineVogPlanner:
    return OfflineVogPlanner(env.role("vog_shared"), env.agents.planner)


def retriever(env) -> OfflineVogRetriever:
    return OfflineVogRetriever(env.role("vog_shared"))


def verifier(env) -> OfflineVogVerifier:
    return OfflineVogVerifier(env.role("vog_shared"))


def reviser(env) -> OfflineVogReviser:
    return OfflineVogReviser(env.role("vog_shared"))
