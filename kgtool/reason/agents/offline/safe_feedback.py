"""SAFE's feedback model without an LLM: a verifier that checks each step against the graph.

The checks follow the taxonomy's order (kgtool.reason.taxonomy.SafeError) and
stop at the first that fails:

final step     premature conclusion (a part of the question is still open),
               wrong conclusion (the answer is not where the kept path ends);
procedural     overthinking (every part is answered already), inefficiency (no
               fact and no entity reached, or a fact that does not move),
               off-topic (the step starts where the path never was, or its
               relation fits no part of the question), redundancy (a fact or an
               entity the path already holds);
attribution    contradictory (the cited fact is one an edit in scope replaced),
               unsupported (no such fact, not in force in the answer's scope, or
               it does not lead where the step claims), information miss ("nothing
               found" while a fitting fact is in force), premature attribution (it
               answers a later part, or starts past an edge it skipped);
logical        logical fallacy (no fact in force joins the two entities).

Existence, scope and connectivity are Cypher reads (cypher/safe/); relation fit
uses the offline agents' relation matcher against the plan's relation for the
part (or the part's wording when the plan names no relations).
"""
from __future__ import annotations

from typing import Sequence

from kgtool.core.types import CandidateFact, Plan
from kgtool.reason.agents.offline.common import (
    Thresholds,
    _Mentions,
    _Profiles,
    _subquestion_analysis,
    relation_key,
    same_name,
)
from kgtool.reason.agents.safe_base import ANSWER_MARK, Feedback, StepView, part_question, start_of
from kgtool.reason.relmatch import RelationMatcher
from kgtool.reason.taxonomy import SafeError as E


class OfflineSafeFeedback:
    """Judges one step of a trajectory against the graph, in the answer's scope."""

    def __init__(self, view, catalog, matcher: RelationMatcher, *, thresholds: Thresholds = Thresholds()):
        self.view = view  # the answer's graph view: its scope and session are the ones the steps are judged in
        self.matcher = matcher
        self.profiles = _Profiles(catalog, matcher)
        self.mentions = _Mentions(catalog)
        self.thresholds = thresholds

    # ------------------------------------------------------------------ public
    def judge(self, question: str, plan: Plan, prefix: Sequence[StepView], step: StepView,
              pool: Sequence[CandidateFact] = ()) -> Feedback:
        covered = sum(1 for s in prefix if s.kind != "final")
        parts = len(plan.subquestions)
        last_id, last_name = (prefix[-1].answer_id, prefix[-1].answer or "") if prefix else (
            plan.topic_id, plan.topic or "")
        if step.kind == "final":
            return self._final(plan, prefix, step, covered, parts, last_name)
        if covered >= parts:
            return Feedback(E.OVERTHINKING, f"every part of the question is answered by the {covered} steps "
                                            f"before; this step adds nothing the answer needs",
                            f"Give the final answer now: {ANSWER_MARK} {last_name}", force_answer=True)
        subq = part_question(plan, covered, last_name)
        visited_ids = {plan.topic_id} | {s.answer_id for s in prefix if s.answer_id}
        visited_names = {plan.topic or ""} | {s.answer or "" for s in prefix}
        used_facts = {s.fact.fact_id for s in prefix if s.fact is not None}
        if step.fact is None and step.answer is None:
            return self._nothing_found(plan, covered, subq, last_name, pool, used_facts)
        problem = (self._inefficiency(step)
                   or self._off_topic(plan, covered, step, last_id)
                   or self._redundancy(step, visited_ids, visited_names, used_facts,
                                       plan.relations[covered] if covered < len(plan.relations) else None))
        if problem is None:
            problem = (self._attribution(plan, covered, step, subq, last_id, last_name)
                       if step.fact is not None else self._logical(step, last_id, last_name))
        if problem is not None:
            return problem
        return self._correct(plan, step, covered, parts)

    # ------------------------------------------------------------ final answer
    def _final(self, plan: Plan, prefix: Sequence[StepView], step: StepView, covered: int, parts: int,
               last_name: str) -> Feedback:
        if covered < parts:
            subq = part_question(plan, covered, last_name)
            return Feedback(E.PREMATURE_CONCLUSION,
                            f"the answer comes after {covered} of the question's {parts} parts; "
                            f"{subq!r} is still open",
                            f"Find the fact that answers: {subq}")
        kept = prefix[-1] if prefix else None
        same_end = kept is not None and kept.answer is not None and (
            (step.answer_id is not None and step.answer_id == kept.answer_id) or same_name(step.answer, kept.answer))
        if not same_end:
            target = kept.answer if kept is not None else None
            return Feedback(E.WRONG_CONCLUSION,
                            f"the answer {step.answer!r} is not where the grounded path ends ({target!r})",
                            f"Give the entity the last step reached: {ANSWER_MARK} {target or ''}".strip(),
                            force_answer=True)
        return Feedback(E.CORRECT, f"{step.answer!r} is the end of a grounded path covering all {parts} parts",
                        "Stop: the question is answered.")

    # -------------------------------------------------------------- procedural
    def _inefficiency(self, step: StepView) -> Feedback | None:
        fact = step.fact
        if fact is not None and (fact.head_id == fact.tail_id or same_name(fact.head, fact.tail)):
            return Feedback(E.INEFFICIENCY, f"the cited fact joins {fact.head!r} to itself: the step does not move",
                            "Cite a fact that leads from the current entity to another one.")
        if fact is None and step.answer_id is None:
            return Feedback(E.INEFFICIENCY, f"{step.answer!r} is no entity of the graph: the step traverses nothing",
                            f"Cite one fact of {step.entity!r} that answers the part.")
        if fact is None and step.answer_id == step.entity_id:
            return Feedback(E.INEFFICIENCY, f"the step ends where it starts ({step.entity!r})",
                            "Cite a fact that leads to a new entity.")
        return None

    def _off_topic(self, plan: Plan, covered: int, step: StepView, last_id: str | None) -> Feedback | None:
        start_id, start_name = start_of(step)
        if start_id is not None and last_id is not None and start_id != last_id:
            if self._chain_length(last_id, start_id) is None:
                return Feedback(E.OFF_TOPIC, f"the step starts from {start_name!r}, which the path cannot reach: "
                                             "it builds a disconnected subgraph",
                                "Continue from the entity the path reached last.")
            return None  # reachable, but past an edge it skipped: judged as premature attribution
        parts = range(len(plan.subquestions))
        if step.fact is not None and not any(self._fits(step.fact, plan, p, step) for p in parts):
            return Feedback(E.OFF_TOPIC, f"the relation {step.fact.relation!r} answers no part of the question",
                            f"Cite a fact that answers: {part_question(plan, covered, step.entity)}")
        return None

    def _redundancy(self, step: StepView, visited_ids: set, visited_names: set, used_facts: set,
                    asked: str | None) -> Feedback | None:
        if step.fact is not None and step.fact.fact_id in used_facts:
            return Feedback(E.REDUNDANCY, f"the fact {step.fact.head!r} {step.fact.relation!r} {step.fact.tail!r} "
                                          "is cited by an earlier step", "Cite a fact the path has not used yet.")
        # coming back to an entity over another fact of the relation the question asks for here is
        # a reading, not a loop ("the wife of T's husband" is T)
        answers_asked = step.fact is not None and asked is not None and relation_key(step.fact) == asked
        if not answers_asked and ((step.answer_id is not None and step.answer_id in visited_ids) or (
                step.answer_id is None and step.answer in visited_names)):
            return Feedback(E.REDUNDANCY, f"the step returns to {step.answer!r}, which the path already holds (a loop)",
                            "Cite a fact that leads to an entity the path has not reached.")
        return None

    # ------------------------------------------------------------- attribution
    def _attribution(self, plan: Plan, covered: int, step: StepView, subq: str, last_id: str | None,
                     last_name: str) -> Feedback | None:
        fact = step.fact
        row = self.view.fact_in_scope(fact.fact_id)
        if row is None:
            return Feedback(E.UNSUPPORTED, f"the graph holds no fact {fact.fact_id!r}",
                            f"Cite a stored fact of {last_name!r} that answers: {subq}")
        if not row["in_force"] and row["superseded_by"]:
            new = row["replacement"]
            instead = f" it now states {new['head']} {new['relation']} {new['tail']}" if new else ""
            return Feedback(E.CONTRADICTORY,
                            f"{row['head']} {row['relation']} {row['tail']} was replaced by edit "
                            f"{row['superseded_by']};{instead}",
                            f"Cite the fact in force instead:{instead or ' the edited one'}.")
        if not row["in_force"]:
            return Feedback(E.UNSUPPORTED, f"{row['head']} {row['relation']} {row['tail']} is not in force "
                                           "in this answer's knowledge", f"Cite a fact in force that answers: {subq}")
        if step.answer_id not in (row["head_id"], row["tail_id"]) and not any(
                same_name(step.answer, n) for n in (row["head"], row["tail"])):
            return Feedback(E.UNSUPPORTED, f"the fact joins {row['head']!r} and {row['tail']!r}, not "
                                           f"{step.answer!r}", "Read the answer off the cited fact.")
        if not (row["evidence"] or "").strip():
            return Feedback(E.UNSUPPORTED, "the cited fact has no evidence sentence", "Cite a fact with evidence.")
        start_id, start_name = start_of(step)
        if start_id is not None and last_id is not None and start_id != last_id:
            return Feedback(E.PREMATURE_ATTRIBUTION,
                            f"the step starts from {start_name!r}, reached from {last_name!r} only through facts "
                            "no step cited", f"Cite the fact that leads from {last_name!r} first: {subq}")
        if not self._fits(fact, plan, covered, step):
            later = [p for p in range(covered + 1, len(plan.subquestions)) if self._fits(fact, plan, p, step)]
            if later:
                return Feedback(E.PREMATURE_ATTRIBUTION,
                                f"{fact.relation!r} answers part {later[0] + 1} of the question before part "
                                f"{covered + 1} is answered", f"First answer: {subq}")
        return None

    def _nothing_found(self, plan: Plan, covered: int, subq: str, last_name: str,
                       pool: Sequence[CandidateFact], used_facts: set) -> Feedback:
        for fact in pool:
            usable = fact.fact_id not in used_facts and fact.head_id != fact.tail_id
            if usable and self._fits(fact, plan, covered, None):
                return Feedback(E.INFORMATION_MISS,
                                f"the step finds nothing, but {fact.head} {fact.relation} {fact.tail} is in force",
                                f"Cite it: {fact.evidence}", suggested_fact_id=fact.fact_id)
        return Feedback(E.CORRECT, f"no fact in force answers {subq!r} for {last_name!r}",
                        f"Give the final answer with what the path holds: {ANSWER_MARK} {last_name}",
                        force_answer=True)

    # ----------------------------------------------------------------- logical
    def _logical(self, step: StepView, last_id: str | None, last_name: str) -> Feedback | None:
        hops = self._chain_length(step.entity_id or last_id, step.answer_id) if step.answer_id else None
        if hops != 1:
            return Feedback(E.LOGICAL_FALLACY,
                            f"no fact in force joins {step.entity or last_name!r} and {step.answer!r}; "
                            "the inferred link cannot be proven on the graph",
                            f"Cite a stored fact of {step.entity or last_name!r} instead of inferring.")
        return None

    # ------------------------------------------------------------------ helpers
    def _correct(self, plan: Plan, step: StepView, covered: int, parts: int) -> Feedback:
        done = covered + 1
        what = (f"{step.fact.head} {step.fact.relation} {step.fact.tail}" if step.fact is not None
                else f"{step.entity} -> {step.answer}")
        if done >= parts:
            return Feedback(E.CORRECT, f"{what} answers the last part of the question",
                            f"Give the final answer: {ANSWER_MARK} {step.answer}", force_answer=True)
        return Feedback(E.CORRECT, f"{what} answers part {done} of {parts}",
                        f"Next, answer: {part_question(plan, done, step.answer or '')}")

    def _chain_length(self, from_id: str | None, to_id: str | None) -> int | None:
        if not from_id or not to_id:
            return None
        if from_id == to_id:
            return 0
        return self.view.hops_between(from_id, to_id)

    def _fits(self, fact: CandidateFact, plan: Plan, part: int, step: StepView | None) -> bool:
        """Does the fact's relation answer this part of the question?"""
        if part >= len(plan.subquestions):
            return False
        prof = self.profiles.of_fact(fact)
        if part < len(plan.relations):
            intended = self.profiles.of(plan.relations[part])
            return self.matcher.relation_similarity(prof, intended) >= self.thresholds.same_relation
        entity = step.entity if step is not None else (plan.topic or "")
        subq = part_question(plan, part, entity)
        analysis = _subquestion_analysis(self.matcher, self.mentions, subq, entity, [fact])
        return self.matcher.fit(analysis, prof) >= self.thresholds.fit


def offline_feedback(env) -> OfflineSafeFeedback:
    graph, services = env.graph, env.services
    return OfflineSafeFeedback(graph.view, services.catalog, services.matcher,
                               thresholds=Thresholds.from_settings(services.settings))
