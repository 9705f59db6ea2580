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

A yes/no or choice question ("Are A and B both ...?", "Which came first, A or
B?") is planned as one constraint per compared entity instead of a chain; the
target placeholder of a chain is typed by the question's form (date, year,
number, person, place; kgtool.reason.reading.form).

Reader: textual recovery reads the answer off the recovered passages with
kgtool.reason.agents.offline.c2rag_spans, looking for spans of the unknown's
type. The final answer is the target placeholder's binding when it has the
asked shape, is not a text fragment, and the chain's evidence ranks it among
its best spans for the question; otherwise the reader declines and the method
recovers the answer from text. Compared questions are answered from their
blocks' evidence (kgtool.reason.agents.offline.c2rag_compare).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from kgtool.core.text import normalise_label, normalize, words
from kgtool.core.types import PassageHit
from kgtool.reason.agents.c2rag_base import Block, Constraint, ConstraintPlan
from kgtool.reason.reading.form import (
    AnswerForm,
    fits,
    phrase_form,
    shape_answer,
    span_shape,
)
from kgtool.reason.agents.offline import c2rag_chain
from kgtool.reason.agents.offline.c2rag_compare import compare_answer
from kgtool.reason.agents.offline.c2rag_spans import rank_spans
from kgtool.reason.agents.offline.text_reader import TextReader, named_in
from kgtool.reason.agents.offline.common import relation_key
from kgtool.reason.question import IMPERATIVES
from kgtool.reason.reading.analysis import analysed
from kgtool.reason.offline_config import OFFLINE


def _variants(label: str, phrases: Sequence[str], m: int) -> list[str]:
    out: list[str] = []
    for p in [label, *phrases]:
        if p and "{}" not in p and normalise_label(p) not in {normalise_label(o) for o in out}:
            out.append(p)
    return out[: max(1, m)]


def _ask_in_turn(constraints: list[Constraint], prev: str, phrases: list[str]) -> str:
    """Append one constraint per phrase, each asked of what the one before reached; the last placeholder."""
    for phrase in phrases:
        end = f"?x{len(constraints) + 1}"
        constraints.append(Constraint(len(constraints), prev, phrase, end, [phrase]))
        prev = end
    return prev


class OfflineConstraintPlanner:
    def __init__(self, env):
        self.planner = env.agents.planner
        self.catalog = env.services.catalog
        self.view = getattr(getattr(env, "graph", None), "view", None)
        self.matcher = env.services.matcher

    def plan(self, question: str, variants: int = 3) -> ConstraintPlan:
        form = analysed(question).form
        if form.compares:
            compared = self._compared(question, form)
            if compared is not None:
                return compared
        plan = self._chain(question, variants)
        # the answer's placeholder is typed by the question's form, so the reader looks for that kind of span
        for c in plan.constraints:
            if plan.target in c.variables and form.kind in _TYPED:
                c.types.setdefault(plan.target, form.kind)
        return plan

    def _compared(self, question: str, form: AnswerForm) -> ConstraintPlan | None:
        """One constraint per compared entity: (entity, what the question says of it, ?v_i).

        A yes/no or choice question is answered by comparing what holds of each entity it names, not by
        following a chain; None when it names fewer than two.
        """
        names = list(form.options) if form.kind == "choice" else self._named(question)
        if len(names) < 2:
            return None
        name_words = {w for n in names for w in words(n)}
        asked = " ".join(w for w in words(question) if w not in name_words) or question
        constraints = [Constraint(i, n, asked, f"?v{i + 1}", [asked], {f"?v{i + 1}": "compared"})
                       for i, n in enumerate(names)]
        return ConstraintPlan(constraints, None)

    def _named(self, question: str) -> list[str]:
        return named_in(question, self.catalog.link_mentions)

    def _chain(self, question: str, variants: int) -> ConstraintPlan:
        base = self.planner.plan(question)
        catalog = self.catalog
        relations = list(getattr(base, "relations", []) or [])
        if relations and base.topic:
            reading = c2rag_chain.reading_of(question, base)
            supports = c2rag_chain.supported(reading, base)
            stated = catalog.stated_vocabulary()
            # a trailing hop through a passage relation that explains nothing the question asks is
            # the search's guess, not the question's relation (kgtool.reason.agents.offline.c2rag_chain)
            relations = relations[:c2rag_chain.kept_hops(supports, relations, stated)]
            # nor is a passage hop whose own words say no phrase of the question: the chain stops before
            # it, and the phrases beyond the hops kept are read from text, one constraint each
            said = c2rag_chain.said_prefix(reading, base, [self._label(k) for k in relations], stated,
                                           self.matcher, supports)
            beyond = c2rag_chain.phrases_beyond(reading, base, said) if said < len(relations) else []
            if beyond is None:  # phrases the reading left whole: the search's path and the question stand
                beyond = []
            elif said < len(relations):
                relations = relations[:said]
            if not relations and not beyond:
                return ConstraintPlan([self._single(question, base.topic)], "?answer")
            directions = list(getattr(base, "directions", []) or []) + ["out"] * len(relations)
            reached = list(getattr(base, "entities", []) or []) + [None] * len(relations)
            constraints, prev, target = self._hops(question, base, relations, directions, reached, variants,
                                                   last_unknown=not beyond)
            if beyond:
                return ConstraintPlan(constraints, _ask_in_turn(constraints, prev, beyond))
            if target is not None and self._beyond(question, base, reading, supports[:len(relations)],
                                                   constraints, directions[len(relations) - 1],
                                                   reached[len(relations) - 1]):
                # the question's outermost phrase (what it asks of the chain's end) names no relation the
                # planner found there: the chain ends at a bridge, not at the answer ("Who was in charge of"
                # the country reached). The answer is then a placeholder no constraint binds, so the method
                # asks the question of the chain's last binding in text (C2Rag._recover_answer), after
                # looking for what the phrase says of it as one more constraint, in the graph and in text
                phrase = reading.required[-1].text
                constraints.append(Constraint(len(constraints), prev, phrase, _BEYOND, [phrase]))
                return ConstraintPlan(constraints, _BEYOND)
            return ConstraintPlan(constraints, target)
        phrases = self._phrase_chain(question, base)
        if phrases is not None:
            return phrases
        return ConstraintPlan([self._single(question, base.topic)], "?answer")

    def _phrase_chain(self, question: str, base) -> ConstraintPlan | None:
        """No graph path explains the question: its own relation phrases, nearest the topic first, one
        constraint each ("the country where the composer of A was a citizen": composer, then country
        where was citizen), each grounded in the graph or read from text. A nested question asks one
        relation of the thing the phrase before it reached; one constraint of all its words asks them
        all of the topic at once. None with fewer than two phrases (the single constraint is that one
        phrase) or a clause the reading left whole (c2rag_chain.phrases_beyond)."""
        if not base.topic:
            return None
        reading = c2rag_chain.reading_of(question, base)
        beyond = c2rag_chain.phrases_beyond(reading, base, 0)
        if len(beyond or []) < 2:
            return None
        constraints: list[Constraint] = []
        return ConstraintPlan(constraints, _ask_in_turn(constraints, base.topic, beyond))

    def _label(self, key: str) -> str:
        phrases = self.catalog.relation_phrases(key)
        return phrases[0] if phrases else key

    def _hops(self, question: str, base, relations: list[str], directions: list[str], reached: list,
              variants: int, *, last_unknown: bool) -> tuple[list[Constraint], str, str | None]:
        """The constraints of the planner's hops kept: (constraints, the chain's end, the last unknown)."""
        catalog = self.catalog
        # a hop that ends at an entity the question names ends at a constant, not an unknown: the
        # constraint then checks the unknown before it ("the N ... <verb>ed in X", X a name)
        named = {m[2] for m in catalog.link_mentions(question)} - {base.topic_id}
        constants = [bool(reached[i] in named) for i in range(len(relations))]
        if constants and all(constants) and last_unknown:
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
        return constraints, prev, target

    def _beyond(self, question: str, base, reading, supports: list[bool], constraints: list[Constraint],
                last_direction: str, end_id: str | None) -> bool:
        """Does the answer lie beyond the chain's end (c2rag_chain): the outermost phrase is unexplained,
        some hop of the chain reads the question, the last hop is no stated relation, and the end is not
        already of the asked kind.

        A chain ending on a stated relation (a fact file's or an edit's) ends where the graph's own
        vocabulary leads: the planner chose that relation among few, and reads curated names of them
        only in part ("the city that acts as the capital", "where ... is based"), so what it leaves
        unexplained there is its reading's gap, not a relation beyond the end."""
        said = [v for c in constraints for v in c.variants]
        if constraints[-1].relation_key in self.catalog.stated_vocabulary():
            return False
        if not any(supports) or not c2rag_chain.last_phrase_unexplained(question, base, reading, said):
            return False
        return not c2rag_chain.end_of_asked_kind(reading, constraints[-1].relation, last_direction, end_id,
                                                 self.catalog.stated_vocabulary(), self.view)

    def _single(self, question: str, topic: str | None) -> Constraint:
        mentions = self.catalog.link_mentions(question)
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

    def __init__(self, services):
        self.catalog = services.catalog
        self.matcher = services.matcher
        self.bm25 = services.scorers.create("bm25")

    def _fact_profile(self, c):
        key = relation_key(c)
        return self.matcher.profile(key, [c.relation, *self.catalog.relation_phrases(key)])

    def score(self, question: str, constraint_text: str, variants: Sequence[str], candidates: Sequence,
              relation_key: str | None = None) -> list[float]:
        if not candidates:
            return []
        query = f"{constraint_text} {question}"
        lexical = np.asarray(self.bm25.score(query, candidates), dtype=float)
        if lexical.max() > 0:
            lexical = lexical / lexical.max()
        if getattr(candidates[0], "kind", "fact") == "passage":
            # a passage has no relation of its own: how it says the variants, and what it shares with the
            # query; every passage's words in one embedder call (one call per passage cost ~0.4 s a recovery)
            prof = self.matcher.profile("variants:" + "|".join(variants), list(variants))
            analyses = self.matcher.analyse_many([(p.text or "", ()) for p in candidates], whole=False)
            said = [self.matcher.expresses(a, prof) for a in analyses]
            return [float(0.5 * s + 0.5 * l) for s, l in zip(said, lexical)]
        prof = self.matcher.profile(relation_key or "variants:" + "|".join(variants), list(variants))
        out = []
        for c, lex in zip(candidates, lexical):
            fact_prof = self._fact_profile(c)
            rel = float(self.matcher.calibrate(self.matcher.relation_similarity(prof, fact_prof)))
            out.append(OFFLINE.c2rag_relation_weight * rel + OFFLINE.c2rag_lexical_weight * float(lex))
        return out


class OfflineReader:
    def __init__(self, env):
        self.catalog = env.services.catalog
        graph = getattr(env, "graph", None)
        self.matcher = env.services.matcher
        # the shared offline reader (kgtool.reason.agents.offline.text_reader): passage mentions read
        # from the graph, not by the linker over each passage
        self.text = TextReader(getattr(graph, "view", None), self.catalog.link_mentions, env.services.matcher)

    def recover(self, question: str, constraint: Constraint, constraint_text: str, known: Sequence[str],
                passages: Sequence[PassageHit]) -> tuple[str | None, str | None]:
        if not passages:
            return None, None
        weights = [max(p.score or 0.0, 1.0 / (i + 2)) for i, p in enumerate(passages)]
        form = _unknown_form(constraint, constraint_text)
        asked_form = analysed(question).form
        if (constraint.relation == question and form.kind == "entity" and not asked_form.compares
                or asked_form.kind in _TYPED and form.kind == asked_form.kind and not form.noun):
            # the answer itself (asked of the chain's end, or the placeholder the plan typed by the question's
            # form): the question's form types it, with the noun it asks by ("what mountain range")
            form = asked_form
        spans = self.text.spans(f"{constraint.relation} {question}", passages,
                                asked=constraint.variants or [constraint.relation], known=known,
                                weights=weights, form=form)
        if not spans or spans[0].score <= 0:
            return None, None
        return spans[0].text, spans[0].passage_id

    def answer(self, question: str, blocks: Sequence[Block], target_binding: str | None) -> str | None:
        """The target's binding when it has the shape the question asks for and the chain's evidence reads
        it as an answer to the question; a compared question is answered from its blocks' evidence.

        None otherwise, so the method recovers the answer from text: a binding of the wrong shape (a name
        for "when"), a text fragment the mentions extractor made a node of, or one that no evidence
        sentence puts forward for the question is a bridge at best, not the answer.
        """
        form = analysed(question).form
        if form.compares:
            if not self._alternative_of_one(question, form):
                return compare_answer(question, form, blocks)
            form = AnswerForm("entity")  # "is X's husband a man or a woman?": the chain's value is the answer
        texts = list(dict.fromkeys(e for b in blocks for e in b.evidence if e))
        if not target_binding or _fragment(target_binding) and not _written_as_name(target_binding, texts):
            return None
        # a graph entity may be a common noun ("piano"); a person, place, date or number has its own shape
        if not fits(target_binding, form) and not (form.kind == "entity" and span_shape(target_binding) == "words"):
            return None
        # only evidence that writes the binding can say whether it answers the question
        if any(normalize(target_binding) in normalize(t) for t in texts):
            hits = [PassageHit(f"evidence:{i}", "", t) for i, t in enumerate(texts)]
            # the chain's other bindings are its bridges: they compete with the answer in the same sentences
            bridges = [b.binding for b in blocks if b.binding and normalize(b.binding) != normalize(target_binding)]
            spans = rank_spans(hits, asked=[question], known=bridges, question=question,
                               link_mentions=self.catalog.link_mentions, matcher=self.matcher,
                               weights=[1.0] * len(hits), form=form)
            said = {normalize(sp.text) for sp in spans[:_SUPPORT_TOP]}
            # evidence in which the span reader finds no answer at all ("x gender male.", a fact file's
            # lowercase triple) puts nothing forward against the binding: it stands, as with no evidence
            if spans and normalize(shape_answer(target_binding, form)) not in said:
                return None
        return shape_answer(target_binding, form)


    def _alternative_of_one(self, question: str, form: AnswerForm) -> bool:
        """A question in yes/no form that asks for a value about one entity of the graph: it offers
        alternatives ("... a man or a woman?") or is a request ("Can you name X's coach?"). The planner
        followed a chain (it compares only two or more named entities), whose value answers it."""
        low = words(question.lower())
        asks = " or " in f" {question.lower()} " or any(w in IMPERATIVES for w in low[:3])
        return form.kind == "yesno" and asks and len(named_in(question, self.catalog.link_mentions)) < 2


# how far down the evidence's span ranking the binding may sit and still be what the evidence answers
_SUPPORT_TOP = 3


# the answer of a plan whose chain stops short of it: bound by no constraint, recovered from text
_BEYOND = "?answer"


_TYPED = ("date", "year", "number", "person", "place")


def _unknown_form(constraint: Constraint, constraint_text: str) -> AnswerForm:
    """The form of the constraint's unknown: its placeholder's type when the plan typed it, else what the
    relation phrase opens with ("city where died": a place, a city), else a name."""
    named = phrase_form(constraint.relation) if constraint.relation else None
    for var in constraint.variables:
        kind = constraint.types.get(var)
        if var in constraint_text and kind in _TYPED:
            return named if named is not None and named.kind == kind else AnswerForm(kind)
    return named or AnswerForm("entity")


def _written_as_name(name: str, texts: Sequence[str]) -> bool:
    """Whether the evidence writes a short word capitalised inside a sentence ("on the river Ost"), as a
    name is written, not only where any word is capitalised (opening a sentence, as "Regarded" does)."""
    pattern = re.compile(rf"(?<=[\w,;] ){re.escape(name)}(?!\w)")
    return any(pattern.search(t) for t in texts)


def _fragment(name: str) -> bool:
    """A graph binding that is a piece of text rather than a name: one capitalised word the mentions
    extractor took from a sentence opening or an adjective ("Regarded", "New York-based")."""
    toks = name.split()
    if name.lower().endswith(("-based", "-born", "-speaking")):
        return True
    return len(toks) == 1 and (name.lower().endswith(("ed", "ing", "ly")) or name.isalpha() and len(name) <= 3
                               and not name.isupper())
