"""C2RAG's offline roles: constraint planner, contextual reranker, reader.

Planner: the offline planner's graph path (the relations whose phrasings
explain the question) becomes a chain of atomic constraints
(topic, r1, ?x1), (?x1, r2, ?x2), ...; a hop read against a fact's direction
becomes (?x_i, r_i, ?x_{i-1}). The m relation variants are the relation's
label and its stored phrasings. When no path explains the question, the plan
is one constraint from the question's first linked entity to the answer, with
the question's remaining words as the relation.

Reranker: a calibrated relevance in 0..1, the closest pairing of the
constraint's variants with the candidate's relation phrasings (the offline
matcher's scale, the same relation = 1), blended with how much of the
constraint and question the candidate's text shares. The cross-encoder
(bge-reranker-v2-m3) replaces it where FlagEmbedding and the model are
available (kgtool.reason.agents.offline.c2rag_rerank).

Reader: textual recovery reads the answer off the recovered passages with
kgtool.reason.agents.offline.c2rag_spans; the final answer is the target
placeholder's binding.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgtool.core.text import normalise_label, words
from kgtool.core.types import PassageHit
from kgtool.reason.agents.c2rag_base import Block, Constraint, ConstraintPlan
from kgtool.reason.agents.offline.c2rag_spans import rank_spans
from kgtool.reason.agents.offline.common import relation_key


def _variants(label: str, phrases: Sequence[str], m: int) -> list[str]:
    out: list[str] = []
    for p in [label, *phrases]:
        if p and "{}" not in p and normalise_label(p) not in {normalise_label(o) for o in out}:
            out.append(p)
    return out[: max(1, m)]


class OfflineConstraintPlanner:
    def __init__(self, ctx):
        self.ctx = ctx

    def plan(self, question: str, variants: int = 3) -> ConstraintPlan:
        ctx = self.ctx
        base = ctx.agents.planner.plan(question)
        catalog = ctx.kg.catalog
        relations = list(getattr(base, "relations", []) or [])
        if relations and base.topic:
            directions = list(getattr(base, "directions", []) or []) + ["out"] * len(relations)
            reached = list(getattr(base, "entities", []) or []) + [None] * len(relations)
            # a hop that ends at an entity the question names ends at a constant, not an unknown: the
            # constraint then checks the unknown before it ("the song ... recorded in Lisbon")
            named = {m[2] for m in catalog.link_mentions(question)} - {base.topic_id}
            constants = [bool(reached[i] in named) for i in range(len(relations))]
            if all(constants):
                constants[-1] = False  # something must stay unknown: the answer
            constraints = []
            prev, target = base.topic, None
            for i, key in enumerate(relations):
                phrases = catalog.relation_phrases(key)
                label = phrases[0] if phrases else key
                end = catalog.entity_name(reached[i]) if constants[i] else f"?x{i + 1}"
                head, tail = (prev, end) if directions[i] != "in" else (end, prev)
                constraints.append(Constraint(i, head, label, tail, _variants(label, phrases, variants),
                                              relation_key=key))
                if not constants[i]:
                    target = end
                prev = end
            return ConstraintPlan(constraints, target)
        return ConstraintPlan([self._single(question, base.topic)], "?answer")

    def _single(self, question: str, topic: str | None) -> Constraint:
        mentions = self.ctx.kg.catalog.link_mentions(question)
        anchor = topic or (max(mentions, key=lambda m: m[1] - m[0])[3] if mentions else None)
        if anchor is None:
            # no name the graph knows: the question's capitalised words are the best anchor left
            caps = [w for w in question.split()[1:] if w[:1].isupper()]
            anchor = " ".join(caps) or question
        anchor_words = set(words(anchor))
        asked = " ".join(w for w in words(question) if w not in anchor_words) or question
        return Constraint(0, anchor, asked, "?answer", [asked])


class OfflineReranker:
    """Relevance of a candidate fact or passage to (question, constraint), 0..1."""

    name = "offline_rerank"

    def __init__(self, ctx):
        self.ctx = ctx
        self.matcher = ctx.kg.matcher
        self.bm25 = ctx.kg.scorers.create("bm25")

    def _fact_profile(self, c):
        key = relation_key(c)
        return self.matcher.profile(key, [c.relation, *self.ctx.kg.catalog.relation_phrases(key)])

    def score(self, question: str, constraint_text: str, variants: Sequence[str], candidates: Sequence,
              relation_key: str | None = None) -> list[float]:
        if not candidates:
            return []
        query = f"{constraint_text} {question}"
        lexical = np.asarray(self.bm25.score(query, candidates), dtype=float)
        if lexical.max() > 0:
            lexical = lexical / lexical.max()
        if getattr(candidates[0], "kind", "fact") == "passage":
            # a passage has no relation of its own: how it says the variants, and what it shares with the query
            prof = self.matcher.profile("variants:" + "|".join(variants), list(variants))
            said = [self.matcher.expresses(self.matcher.analyse(p.text or "", whole=False), prof) for p in candidates]
            return [float(0.5 * s + 0.5 * l) for s, l in zip(said, lexical)]
        prof = self.matcher.profile(relation_key or "variants:" + "|".join(variants), list(variants))
        out = []
        for c, lex in zip(candidates, lexical):
            fact_prof = self._fact_profile(c)
            rel = float(self.matcher.calibrate(self.matcher.relation_similarity(prof, fact_prof)))
            out.append(0.85 * rel + 0.15 * float(lex))
        return out


class OfflineReader:
    def __init__(self, ctx):
        self.ctx = ctx

    def recover(self, question: str, constraint: Constraint, constraint_text: str, known: Sequence[str],
                passages: Sequence[PassageHit]) -> tuple[str | None, str | None]:
        if not passages:
            return None, None
        kg = self.ctx.kg
        weights = [max(p.score or 0.0, 1.0 / (i + 2)) for i, p in enumerate(passages)]
        spans = rank_spans(passages, asked=constraint.variants or [constraint.relation], known=known,
                           question=f"{constraint.relation} {question}", link_mentions=kg.catalog.link_mentions,
                           matcher=kg.matcher, weights=weights)
        if not spans or spans[0].score <= 0:
            return None, None
        return spans[0].text, spans[0].passage_id

    def answer(self, question: str, blocks: Sequence[Block], target_binding: str | None) -> str | None:
        return target_binding
