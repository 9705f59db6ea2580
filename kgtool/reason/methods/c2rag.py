"""C2RAG: constraint-checked retrieval with an N_eff sufficiency check and textual recovery.

The protocol of the C2RAG paper (sections 3.2-3.4):

1. The planner role turns the question into atomic constraints (h, r, t) over
   constants and typed placeholders, each with m relation variants; they are
   stored on the Run as Constraint nodes.
2. A constraint whose other end is known (a constant, or a placeholder that is
   already bound) is grounded: anchors by token coverage and string similarity
   (top `anchors`), their 1-hop facts in the answer's scope, the top
   `relation_top` by relation-variant similarity S_rel, reranked (cross-encoder
   or the offline scorer), top `top_k`. The step is recorded; p and N_eff are
   computed in Cypher and the step is resolved iff N_eff <= gamma.
3. Resolved: the induced entities, read back from the stored candidates with
   their p, bind the placeholder (intersected with what other constraints bound
   it to, union when that is empty). Unresolved: textual recovery, a step whose
   candidates are passages, and the reader's answer from them binds it.
4. Constraints with two unknowns wait until one end is bound.
5. The answer is the reader's over the constraint-aligned evidence blocks (llm),
   or the target placeholder's binding when the offline reader accepts it. When
   the reader gives none (no binding, or one that is not an answer of the asked
   shape), the answer itself is recovered from text: the question asked of the
   chain's last binding, recorded as one more recovery step.

Every state change of a constraint (anchors, N_eff, induced set, binding, the
steps that checked it) is written to its node as it happens.
"""
from __future__ import annotations

from typing import ClassVar
from kgtool.core.configs import PartConfig, setting
from kgtool.errors import ConfigError
import difflib
from dataclasses import dataclass, field

from kgtool.core.text import normalize
from kgtool.core.types import Verdict
from kgtool.reason import steps
from kgtool.reason.agents import factory
from kgtool.reason.agents.c2rag_base import (
    Block,
    Constraint,
    ConstraintPlan,
    is_variable,
    linearize,
)
from kgtool.reason.context import HopState, RunContext
from kgtool.reason.methods.base import Outcome
from kgtool.reason.methods.c2rag_values import settled_members, value_groups
from kgtool.reason.recorders.c2rag import CONSTRAINTS, C2ragRecorder
from kgtool.reason.taxonomy import C2ragError
from kgtool.reason.trace import TraceRecorder, candidate_row, new_id
from kgtool.retrieve.passages import lucene_query
from kgtool.retrieve.scoring import RelationSimilarityScorer, token_coverage


@dataclass(frozen=True)
class C2RagConfig(PartConfig):
    """C2RAG's settings; defaults from the paper's retrieval setup (symbols as in the paper)."""

    GLOBALS: ClassVar[dict[str, str]] = {"gamma": "gamma"}

    gamma: float = setting(1.5, "sufficiency: a constraint is resolved iff N_eff <= gamma (paper: 1.5)")
    top_k: int = setting(3, "K_s: candidate facts kept per constraint after the cross-encoder rerank")
    relation_variants: int = setting(3, "m: relation phrasings the planner writes per constraint")
    anchors: int = setting(3, "E: anchor entities kept per constant by token coverage S_tok")
    relation_top: int = setting(8, "R: relations kept per anchor by relation similarity S_rel")
    passage_pool: int = setting(8, "K'_t: passages retrieved densely for textual recovery")
    passages: int = setting(3, "K_t: passages kept after reranking in textual recovery")
    reranker: str = setting("auto", "cross-encoder for the rerank: auto (the installed one), or a model name")
    min_relevance: float = setting(0.2, "reranker score (0..1) below which a candidate is no evidence at all")
    text_margin: float = setting(1.25, "source prior (not in the paper): where the anchors have stated facts, facts "
                                       "read only from passages compete for a constraint only if one scores over "
                                       "text_margin times the best stated candidate (0: no prior)")

    def check(self) -> None:
        if self.text_margin < 0:
            raise ConfigError(f"c2rag: text_margin must be 0 or more, got {self.text_margin}")
        for name in ("top_k", "relation_variants", "anchors", "relation_top", "passage_pool", "passages"):
            if getattr(self, name) < 1:
                raise ConfigError(f"c2rag: {name} must be at least 1, got {getattr(self, name)}")


@dataclass
class Value:
    """One entity (or, from text, one name the graph does not know) a placeholder may stand for."""

    key: str  # entity id, or "text:<normalized name>"
    name: str
    weight: float
    entity_id: str | None = None


@dataclass
class Grounding:
    """What one constraint ended up as."""

    constraint: Constraint
    state: str = "pending"  # resolved | recovered | unresolved | failed
    variable: str | None = None
    values: dict[str, Value] = field(default_factory=dict)
    hop: HopState | None = None
    evidence: list[str] = field(default_factory=list)
    neff: float | None = None
    members: set[str] = field(default_factory=set)  # the values of a many-valued relation it settled


class C2Rag:
    """C2RAG: constraint plan, anchored retrieval, N_eff sufficiency, binding, textual recovery."""

    taxonomy = C2ragError
    trace_sections = (CONSTRAINTS,)

    Config = C2RagConfig

    def __init__(self, config: C2RagConfig | None = None, /, **settings):
        self.settings = C2RagConfig.of("c2rag", config, settings)
        self.gamma = self.settings.gamma
        self.top_k = self.settings.top_k  # K_s
        self.relation_variants = self.settings.relation_variants  # m
        self.anchors = self.settings.anchors  # E
        self.relation_top = self.settings.relation_top  # R
        self.passage_pool = self.settings.passage_pool  # K'_t
        self.passages = self.settings.passages  # K_t
        self.reranker = self.settings.reranker
        # a candidate the reranker scores below this (both rerankers score 0..1) is no evidence for the
        # constraint: without the floor a lone, unrelated fact would get p = 1 and pass any gamma
        self.min_relevance = self.settings.min_relevance
        self.text_margin = self.settings.text_margin

    def config(self) -> dict:
        return self.settings.as_dict()

    # ------------------------------------------------------------------ loop
    def run(self, ctx: RunContext, question: str) -> Outcome:
        plan: ConstraintPlan = ctx.role("c2rag_planner").plan(question, self.relation_variants)
        for c in plan.constraints:
            c.id = new_id("constraint")
        C2ragRecorder(ctx).create([c.as_row(plan.target) for c in plan.constraints])
        self._rerank = factory.reranker(ctx.services, self.reranker)
        self._relsim = RelationSimilarityScorer(ctx.services.embedder)
        reader = ctx.role("c2rag_reader")
        bindings: dict[str, dict[str, Value]] = {}
        done: dict[str, Grounding] = {}
        todo = list(plan.constraints)
        while todo:
            ready = [c for c in todo if self._known_end(c, bindings) is not None]
            if not ready:
                break
            # constraints anchored on constants first, all of them, so bindings intersect before propagating
            batch = [c for c in ready if not is_variable(self._known_end(c, bindings))] or ready[:1]
            for c in batch:
                todo.remove(c)
                settled = {g.variable: g.members for g in done.values() if g.variable and g.members}
                done[c.id] = self._ground(ctx, question, c, bindings, reader, settled)
            self._bind(ctx, [done[c.id] for c in batch], bindings, done)
        for c in todo:  # no end ever became known
            g = done[c.id] = Grounding(c, state="failed")
            ctx.trace.verdict(None, Verdict(False, c.index + 1, C2ragError.UNGROUNDED.value,
                                            f"{c.pattern}: neither end was bound"), c.index + 1)
            self._update(ctx, g, {"state": "failed"})
        return self._finish(ctx, question, plan, done, bindings, reader)

    @staticmethod
    def _known_end(c: Constraint, bindings: dict) -> str | None:
        """The end to anchor on (a constant, or a bound placeholder); None while both ends are unknown."""
        head_known = not is_variable(c.head) or bool(bindings.get(c.head))
        tail_known = not is_variable(c.tail) or bool(bindings.get(c.tail))
        if head_known != tail_known:
            return c.head if head_known else c.tail
        if not head_known:
            return None
        # both known: anchor on a constant and check (intersect) the placeholder at the other end
        return c.tail if is_variable(c.head) and not is_variable(c.tail) else c.head

    # -------------------------------------------------------------- grounding
    def _ground(self, ctx: RunContext, question: str, c: Constraint, bindings: dict, reader,
                settled: dict[str, set[str]]) -> Grounding:
        known = self._known_end(c, bindings)
        induced = c.tail if known == c.head else c.head
        g = Grounding(c, variable=induced if is_variable(induced) else None)
        names = {v: max(vals.values(), key=lambda x: x.weight).name for v, vals in bindings.items() if vals}
        text = linearize(c, names)
        anchors = self._anchors(ctx, known, bindings)
        want = "out" if known == c.head else "in"
        ranked = self._candidates(ctx, question, c, text, anchors, want)
        anchor_ids = {a.entity_id for a in anchors if a.entity_id}
        top_anchor = anchors[0] if anchors else None
        pending: list[dict] = []
        chosen = ranked[0][0] if ranked else None
        answer_id, answer = chosen.answer_from("") if chosen else (None, None)
        # the subject's stated values of one relation are one candidate of N_eff (c2rag_values): the
        # subject is the top anchor, or every value a settled many-valued hop bound the placeholder to
        groups = value_groups(ctx, ranked, settled.get(known) or [a.entity_id for a in anchors[:1]], want)
        rows = [{**candidate_row(cand, score=z, extra_scores=extra), "group": groups.get(cand.fact_id)}
                for cand, z, extra in ranked]
        row = TraceRecorder.step_row(hop=c.index + 1, kind="constraint", query=text, candidates=rows,
                                     gamma=self.gamma, entity_id=top_anchor.entity_id if top_anchor else None,
                                     entity=top_anchor.name if top_anchor else (known or ""), chosen=chosen,
                                     answer_id=answer_id, answer=answer)
        pending.append(row)
        hop = HopState(row["id"], c.index + 1, text, row["entity_id"], row["entity"], chosen, answer_id, answer)
        steps.record(ctx, pending, [hop])
        g.neff = hop.neff
        stored = C2ragRecorder(ctx).checked(hop.step_id)
        props = {"state": hop.state, "source": None, "neff": hop.neff, "variable": g.variable,
                 "anchors": [a.name for a in anchors]}
        if stored["state"] == "resolved":
            g.state, g.hop = "resolved", hop
            _induce(g, stored["candidates"], anchor_ids, want)
            g.members = settled_members(ranked, groups, anchor_ids)
            # the resolved constraint's facts as text: their source passages, else their evidence sentences
            g.evidence = C2ragRecorder(ctx).fact_texts([cand["id"] for cand in stored["candidates"]])
            props.update(state="resolved", source="graph")
            self._update(ctx, g, props, [{"step_id": hop.step_id, "phase": "structural"}])
            return g
        # not sufficient in the graph: say why on the step, then recover from text
        why = (C2ragError.NO_ANCHOR if not anchors else C2ragError.NO_CANDIDATES if not ranked
               else C2ragError.INSUFFICIENT)
        ctx.trace.verdict(hop.step_id, Verdict(False, c.index + 1, why.value,
                                               f"{text}: N_eff={_fmt(hop.neff)} > gamma={self.gamma}"
                                               if why is C2ragError.INSUFFICIENT else f"{text}: {why.value}"),
                          c.index + 1)
        recovered = self._recover(ctx, question, c, text, hop, anchors, names, reader,
                                  named=[cand.answer_from("") for cand, _z, _e in ranked]
                                  if any(cand.stated for cand, _z, _e in ranked) else None)
        step_links = [{"step_id": hop.step_id, "phase": "structural"}]
        if recovered is not None:
            rhop, value, evidence = recovered
            step_links.append({"step_id": rhop.step_id, "phase": "recovery"})
            g.evidence = evidence
            if value is not None:
                g.state, g.hop = "recovered", rhop
                g.values = {value.key: value}
                props.update(state="recovered", source="text")
                self._update(ctx, g, props, step_links)
                return g
            ctx.trace.verdict(rhop.step_id, Verdict(False, c.index + 1, C2ragError.UNRECOVERED.value,
                                                    f"{text}: no recovered passage answers it"), c.index + 1)
        # neither source is sufficient: carry the ambiguous graph candidates as a weak binding, marked so
        g.state, g.hop = "unresolved", hop if chosen is not None else None
        _induce(g, stored["candidates"], anchor_ids, want)
        props.update(state="unresolved", source="graph" if g.values else None)
        self._update(ctx, g, props, step_links)
        return g

    def _anchors(self, ctx: RunContext, known: str, bindings: dict) -> list[Value]:
        """E anchor entities for the known end, best first, weights in 0..1."""
        if is_variable(known):
            values = sorted(bindings[known].values(), key=lambda v: -v.weight)[: self.anchors]
            top = values[0].weight if values and values[0].weight > 0 else 1.0
            out = [Value(v.key, v.name, v.weight / top, v.entity_id) for v in values if v.entity_id]
            for v in values:  # a name recovered from text that the graph does not know: match it like a constant
                if not v.entity_id:
                    out += self._match(ctx, v.name)[:1]
            return out[: self.anchors]
        return self._match(ctx, known)

    def _match(self, ctx: RunContext, surface: str) -> list[Value]:
        """Anchor matching: S_tok (token coverage) plus string similarity over full-text proposals."""
        query = lucene_query(surface)
        rows = steps.entity_candidates(ctx, query, 25)
        linked = ctx.link(surface)
        scored: dict[str, Value] = {}
        target = normalize(surface)
        for r in rows:
            names = [r["name"], *(r["aliases"] or [])]
            s_tok = max(token_coverage(surface, n) for n in names)
            sim = max(difflib.SequenceMatcher(None, target, normalize(n)).ratio() for n in names)
            score = 0.5 * s_tok + 0.5 * sim
            if r["entity_id"] == linked:
                score = 1.0
            if score > 0:
                scored[r["entity_id"]] = Value(r["entity_id"], r["name"], score, r["entity_id"])
        if linked and linked not in scored:
            scored[linked] = Value(linked, steps.entity_name(ctx, linked), 1.0, linked)
        return sorted(scored.values(), key=lambda v: (-v.weight, v.name))[: self.anchors]

    def _candidates(self, ctx: RunContext, question: str, c: Constraint, text: str, anchors: list[Value],
                    want: str) -> list[tuple]:
        """(candidate, z, named scores): 1-hop facts of the anchors, top R by S_rel, reranked, top K_s."""
        pool, weight_of = [], {}
        seen = set()
        for a in anchors:
            for cand in ctx.retriever.pool(ctx.session, a.entity_id, ctx.scope, ctx.memo):
                if cand.fact_id in seen:
                    continue
                seen.add(cand.fact_id)
                pool.append(cand)
                weight_of[cand.fact_id] = a.weight
        if not pool:
            return []
        variants = c.variants or [c.relation]
        s_rel = self._relsim.score(text, pool, variants=variants)
        order = sorted(range(len(pool)), key=lambda i: (-s_rel[i], pool[i].fact_id))[: self.relation_top]
        shortlist = [pool[i] for i in order]
        z = self._rerank.score(question, text, variants, shortlist, relation_key=c.relation_key)
        reverse = ctx.services.settings.offline_reverse_factor
        scored = []
        for cand, i, raw in zip(shortlist, order, z):
            w = weight_of[cand.fact_id] * (1.0 if cand.direction == want else reverse)
            scored.append((cand, float(raw) * w, {"s_rel": float(s_rel[i]), self._rerank.name: float(raw),
                                                  "anchor": weight_of[cand.fact_id]}))
        scored.sort(key=lambda t: (-t[1], t[0].fact_id))
        top = self._stated_first([t for t in scored if t[1] >= self.min_relevance])[: self.top_k]
        for rank, (cand, _z, _e) in enumerate(top, start=1):
            cand.rank = rank
        return top

    def _stated_first(self, scored: list[tuple]) -> list[tuple]:
        """The source prior: facts an edit or a fact file states settle a constraint without the passages'
        facts, unless a passage fact clearly scores higher (a corpus stored beside the stated facts must not
        unsettle what they settle, yet still answers what they do not know)."""
        stated = [t for t in scored if t[0].stated]
        if not stated or self.text_margin <= 0:
            return scored
        best_text = max((t[1] for t in scored if not t[0].stated), default=0.0)
        return stated if best_text <= self.text_margin * stated[0][1] else scored

    def _recover(self, ctx: RunContext, question: str, c: Constraint, text: str, hop: HopState | None,
                 anchors: list[Value], names: dict, reader, *, named: list[tuple] | None = None):
        """Textual recovery: passages for the constraint, reranked, top K_t, recorded; the reader's answer.
        `named` (a hop over stated facts, only ambiguous: its candidates' (id, name)): just passages naming
        the known end or a candidate, since ranked retrieval in a store of documents about other things
        returns strangers' pages; a hop known only from passages keeps all (the question finds the page)."""
        known = [a.name for a in anchors[:1]] or [t for t in (c.head, c.tail) if not is_variable(t)]
        asked = c.variants or [c.relation]
        # a phrase no graph relation answered, asked of its known end: that end's own pages first
        if named is None and c.relation_key is None and question != c.relation and "compared" not in c.types.values():
            pool = steps.anchored_passages(ctx, known, asked, question, self.passage_pool)
        else:
            pool = steps.retrieve_passages(ctx, " ".join([*known, *asked, question]), self.passage_pool)
        if named is not None:
            pool = steps.passages_naming(ctx, pool, [a.entity_id for a in anchors] + [i for i, _n in named],
                                         [*known, *(n for _i, n in named if n)])
        if not pool:
            return None
        z = self._rerank.score(question, text, c.variants or [c.relation], pool)
        order = sorted(range(len(pool)), key=lambda i: (-z[i], pool[i].passage_id))[: self.passages]
        top = []
        for rank, i in enumerate(order, start=1):
            hit = pool[i]
            hit.rank = rank
            top.append((hit, float(z[i])))
        for hit, zi in top:
            hit.score = zi  # the reader weighs passages by the reranker
        answer, passage_id = reader.recover(question, c, text, known, [h for h, _ in top])
        answer_id = ctx.link(answer) if answer else None
        chosen = next((h for h, _ in top if h.passage_id == passage_id), None)
        rows = [candidate_row(h, score=zi, extra_scores={self._rerank.name: zi}) for h, zi in top]
        pending: list[dict] = []
        entity_id = hop.entity_id if hop is not None else (anchors[0].entity_id if anchors else None)
        entity = hop.entity if hop is not None else (anchors[0].name if anchors else "")
        row = TraceRecorder.step_row(hop=c.index + 1, kind="recovery", attempt=1, query=text, candidates=rows,
                                     gamma=self.gamma, entity_id=entity_id, entity=entity,
                                     chosen=chosen if answer else None, answer_id=answer_id, answer=answer)
        pending.append(row)
        rhop = HopState(row["id"], c.index + 1, text, entity_id, entity, None, answer_id, answer)
        steps.record(ctx, pending, [rhop])
        if hop is not None:
            C2ragRecorder(ctx).recovery(hop.step_id, rhop.step_id,
                                        f"N_eff={_fmt(hop.neff)} > gamma={self.gamma}: textual recovery")
        evidence = [h.text for h, _ in top]
        if not answer:
            return rhop, None, evidence
        key = answer_id or "text:" + normalize(answer)
        name = steps.entity_name(ctx, answer_id) if answer_id else answer
        return rhop, Value(key, name, 1.0, answer_id), evidence

    def _recover_answer(self, ctx: RunContext, question: str, plan: ConstraintPlan, groundings: list[Grounding],
                        bindings: dict, best: Value | None, names: dict, reader, last: HopState | None):
        """Textual recovery of the answer itself: the question asked of the chain's last binding.
        Recorded as a recovery step after the chain's last step (linked to it as a fallback)."""
        anchor = best or next((max(bindings[g.variable].values(), key=lambda v: v.weight)
                               for g in reversed(groundings) if g.variable and bindings.get(g.variable)), None)
        topic = anchor.name if anchor else next(
            (t for c in plan.constraints for t in (c.head, c.tail) if not is_variable(t)), None)
        if not topic:
            return None
        types = next((dict(c.types) for c in plan.constraints if plan.target and plan.target in c.types), {})
        kind = types.get(plan.target) if plan.target else None
        c = Constraint(len(plan.constraints), topic, question, "?answer", [question],
                       {"?answer": kind} if kind else {})
        anchors = ([anchor] if anchor and anchor.entity_id else []) or self._match(ctx, topic)[:1]
        recovered = self._recover(ctx, question, c, linearize(c, names), last, anchors or [Value("", topic, 1.0)],
                                  names, reader, named=[] if last and last.fact and last.fact.stated else None)
        if recovered is None:
            return None
        rhop, value, _evidence = recovered
        return rhop, value

    # ---------------------------------------------------------------- binding
    def _bind(self, ctx: RunContext, batch: list[Grounding], bindings: dict, done: dict) -> None:
        """E_b(v): intersect what the constraints of this round induced for v with what v holds (union if empty)."""
        touched: dict[str, list[Grounding]] = {}
        for g in batch:
            if g.variable and g.values:
                touched.setdefault(g.variable, []).append(g)
        rows = []
        for var, groundings in touched.items():
            # sets from sufficient graph evidence decide; a set recovered from text or left ambiguous only
            # narrows them when it agrees, so a weaker source never overrides a resolved binding
            firm = [g.values for g in groundings if g.state == "resolved"] + (
                [bindings[var]] if bindings.get(var) else [])
            weak = [g.values for g in groundings if g.state != "resolved"]
            sets = firm or weak
            common = set.intersection(*(set(x) for x in sets))
            keys = common or set().union(*(set(x) for x in sets))
            for extra in weak if firm else []:
                if keys & set(extra):
                    keys &= set(extra)
            sets = firm + weak
            merged: dict[str, Value] = {}
            for s in sets:
                for key, v in s.items():
                    if key in keys:
                        m = merged.setdefault(key, Value(key, v.name, 0.0, v.entity_id))
                        m.weight += v.weight
            bindings[var] = merged
            ranked = sorted(merged.values(), key=lambda v: -v.weight)
            for g in [d for d in done.values() if d.variable == var]:
                rows.append({"id": g.constraint.id,
                             "props": {"binding": [v.name for v in ranked], "binding_weights": [v.weight for v in ranked],
                                       "induced": [v.name for v in sorted(g.values.values(), key=lambda v: -v.weight)],
                                       "intersected": bool(common) and len(sets) > 1},
                             "steps": [],
                             "binds": [{"entity_id": v.entity_id, "variable": var, "weight": v.weight}
                                       for v in ranked if v.entity_id]})
        C2ragRecorder(ctx).update(rows)

    def _update(self, ctx: RunContext, g: Grounding, props: dict, step_links: list[dict] | None = None) -> None:
        C2ragRecorder(ctx).update([{"id": g.constraint.id, "props": props, "steps": step_links or [],
                                    "binds": None}])

    # ------------------------------------------------------------------ answer
    def _finish(self, ctx: RunContext, question: str, plan: ConstraintPlan, done: dict, bindings: dict,
                reader) -> Outcome:
        groundings = [done[c.id] for c in plan.constraints if c.id in done]
        target = plan.target or (groundings[-1].variable if groundings else None)
        values = sorted((bindings.get(target) or {}).values(), key=lambda v: -v.weight) if target else []
        best = values[0] if values else None
        names = {v: max(vals.values(), key=lambda x: x.weight).name for v, vals in bindings.items() if vals}
        blocks = []
        for g in groundings:
            if g.hop is not None and g.hop.fact is not None and not g.evidence:
                g.evidence = [g.hop.fact.evidence]
            vals = sorted(g.values.values(), key=lambda v: -v.weight)
            blocks.append(Block(linearize(g.constraint, names), g.state, vals[0].name if vals else None,
                                [e for e in g.evidence if e]))
        answer = reader.answer(question, blocks, best.name if best else None)
        chain = [g.hop for g in groundings if g.hop is not None]
        if not answer:
            # the reader found no answer of the asked shape in the bound chain (an unbound target, or a binding
            # that is a text fragment or a name where a date is asked): recover it from text, anchored on
            # what the chain did bind
            recovered = self._recover_answer(ctx, question, plan, groundings, bindings, best, names, reader,
                                             chain[-1] if chain else None)
            if recovered is not None and recovered[1] is not None:
                rhop = recovered[0]
                chain.append(rhop)
                # the reader's own wording of the answer, not the name of the entity it links to
                answer = rhop.answer
        answer_id = best.entity_id if best and answer == best.name else (ctx.link(answer) if answer else None)
        problems = [g for g in groundings if g.state not in ("resolved", "recovered")]
        status = "no_answer" if not answer else ("unverified" if problems else "answered")
        last = chain[-1].step_id if chain else None
        verdict = Verdict(valid=status == "answered",
                          failed_hop=problems[0].constraint.index + 1 if problems else None,
                          error_type=None if not problems else (
                              C2ragError.UNGROUNDED.value if problems[0].state == "failed"
                              else C2ragError.UNRECOVERED.value),
                          explanation=f"{len(groundings) - len(problems)} of {len(plan.constraints)} constraints "
                                      f"grounded; answer from {target or 'no placeholder'}")
        return Outcome(chain, status, 0, [c.pattern for c in plan.constraints],
                       final_verdict=(last, verdict, len(plan.constraints) + 1), answer=answer, answer_id=answer_id)


def _induce(g: Grounding, candidates: list[dict], anchor_ids: set[str], want: str) -> None:
    """E_i(v): add each stored candidate's induced end to the grounding's values, weighted by its p."""
    for cand in candidates:
        other_id, other = _other_end(cand, anchor_ids, want)
        if other_id:
            v = g.values.setdefault(other_id, Value(other_id, other, 0.0, other_id))
            v.weight += float(cand["p"] or 0.0)


def _other_end(cand: dict, anchor_ids: set[str], want: str) -> tuple[str | None, str | None]:
    """The end of a stored candidate fact that the constraint induces (not the anchor)."""
    head, tail = cand.get("head_id"), cand.get("tail_id")
    if head in anchor_ids and tail not in anchor_ids:
        return tail, cand.get("tail")
    if tail in anchor_ids and head not in anchor_ids:
        return head, cand.get("head")
    return (tail, cand.get("tail")) if want == "out" else (head, cand.get("head"))


def _fmt(x) -> str:
    return "none" if x is None else f"{x:.3f}"
