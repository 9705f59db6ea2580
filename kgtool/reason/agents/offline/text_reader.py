"""The offline reader C2RAG, ReAgent and bm25-reader share: answers read off passages without a model.

Candidates are the spans of the retrieved passages that have the shape the
question asks for (kgtool.reason.reading.form: a date for
"when", a number for "how many", a name otherwise), plus the bound chain's
answer where a method has one. Names come from the entities the graph records
each passage as mentioning (Passage-[:MENTIONS]->Entity, and the entity its
document is about), read in one statement for all the passages read and found
in the text by their names and aliases, and from capitalised runs: no entity
linker runs over passage text while answering (it cost 30-60 ms a passage).

Each candidate is scored by kgtool.reason.agents.offline.c2rag_spans.rank_spans:
its passage's rank, how much of the question and of the asked relation its
sentence says (the offline relation matcher, all sentences in one embedder call, or stemmed
words without it), whether that sentence
also names what is already known (the anchor), closeness to those words, and
support from the chain (a span the chain bound, or that its evidence names,
gains c2rag_spans.SUPPORT_BONUS). Comparison and yes/no questions are answered
from each compared entity's passages (kgtool.reason.agents.offline.c2rag_compare).

Fixed defaults, not fitted to any question set: passage weight 1/(rank + 1);
the span weights of rank_spans; SUPPORT_BONUS 1.3; CHAIN_TOP 3 (the chain's
binding stands when the passages rank it among their best three spans); READ_PASSAGES 5 and
COMPARE_PASSAGES 3 (passages read for a question, and per compared entity).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import pairwise

from kgtool.core.text import normalize
from kgtool.core.types import PassageHit
from kgtool.reason.agents.c2rag_base import Block
from kgtool.reason.reading.analysis import analysed
from kgtool.reason.reading.form import AnswerForm, shape_answer
from kgtool.reason.agents.offline.c2rag_compare import compare_answer
from kgtool.reason.agents.offline.c2rag_spans import Span, rank_spans
from kgtool.reason.agents.offline.common import Mention
from kgtool.reason.reading.words import NAME_LINKERS

# passages read for a question answered from text alone, and per entity of a compared question
READ_PASSAGES = 5
COMPARE_PASSAGES = 3
# how far down the passages' span ranking a chain's binding may sit and still be what they answer
CHAIN_TOP = 3


def locate(text: str, entities: Sequence[dict]) -> list[Mention]:
    """Where the entities' names (and aliases) stand in `text` as whole words, longest first, no overlaps.

    A name written in lower case ("piano") is matched in any case; a capitalised one as written, so
    an ordinary word does not stand for the entity a heading made of it. Plain string search: the
    names change with every passage, so compiled patterns would miss the regex cache.
    """
    low = text.lower()
    found: list[tuple[int, int, str, str]] = []
    for e in entities:
        for name in dict.fromkeys([e.get("name") or "", *(e.get("aliases") or [])]):
            name = name.strip()
            if len(name) < 2:
                continue
            hay, needle = (low, name) if name == name.lower() else (text, name)
            at = hay.find(needle)
            while at >= 0:
                end = at + len(needle)
                if (at == 0 or not text[at - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
                    found.append((at, end, e["id"], text[at:end]))
                at = hay.find(needle, at + 1)
    found.sort(key=lambda t: (-(t[1] - t[0]), t[0]))
    taken: list[tuple[int, int]] = []
    out = []
    for s, e, eid, surface in found:
        if any(s < te and ts < e for ts, te in taken):
            continue
        taken.append((s, e))
        out.append((s, e, eid, surface))
    return sorted(out)


class TextReader:
    """Spans of retrieved passages, typed by the question, ranked; compared questions from per-entity text.

    graph: the answer's graph view (kgtool.reason.graphview.GraphView), which reads the passages'
    mentions; None reads none. link_mentions: the
    catalog's linker, used only for texts that are not stored passages (evidence sentences).
    matcher: the offline relation matcher, which reads how a sentence says what is asked (all the
    sentences' words embedded in one call); without it, shared stemmed words measure it.
    """

    def __init__(self, graph, link_mentions: Callable[[str], list] | None = None, matcher=None):
        self.graph = graph
        self.matcher = matcher  # the offline relation matcher: how a sentence says what is asked (else words)
        self.link_mentions = link_mentions
        self._entities: dict[str, list[dict]] = {}  # passage id -> its entities, read once per answer

    def without_model(self) -> "TextReader":
        """The same reader scoring sentences by their words alone (a baseline that uses no model)."""
        plain = TextReader(self.graph, self.link_mentions)
        plain._entities = self._entities
        return plain

    def mentions(self, passages: Sequence[PassageHit]) -> dict[str, list[Mention]]:
        """Located mentions per passage id (one read for the passages not read yet)."""
        missing = [p.passage_id for p in passages if p.passage_id not in self._entities]
        if missing and self.graph is not None:
            got = self.graph.passage_entities(missing)
            for pid in missing:
                self._entities[pid] = got.get(pid, [])
        return {p.passage_id: locate(p.text or "", self._entities[p.passage_id])
                for p in passages if p.passage_id in self._entities}

    def spans(self, question: str, passages: Sequence[PassageHit], *, asked: Sequence[str] | None = None,
              known: Sequence[str] = (), support: Sequence[str] = (), form: AnswerForm | None = None,
              weights: Sequence[float] | None = None) -> list[Span]:
        """Candidate answers in `passages`, best first (see the module docstring)."""
        if not passages:
            return []
        form = form or analysed(question).form
        located = self.mentions(passages) if form.wants_name else {}
        return rank_spans(passages, asked=list(asked or [question]), known=list(known), question=question,
                          link_mentions=self.link_mentions, matcher=self.matcher, weights=weights, form=form,
                          mentions=located, support=support)

    def answer(self, question: str, passages: Sequence[PassageHit], *, known: Sequence[str] = (),
               asked: Sequence[str] | None = None, chain: Sequence[str] = (), binding: str | None = None,
               form: AnswerForm | None = None) -> tuple[str | None, str | None]:
        """(answer, passage id): the chain's binding when the passages rank it among their best CHAIN_TOP
        spans, else the best span (where no sentence says anything of the question, a span of the asked
        shape from the best-ranked passage); (None, None) when no span of the asked shape is there."""
        form = form or analysed(question).form
        ranked = self.spans(question, passages, asked=asked, known=known, support=chain, form=form)
        spans = [sp for sp in ranked if sp.score > 0]
        if not spans and ranked:
            # no sentence shares a word with the question ("It has a population of 84,000."): the first
            # span of the asked shape in the best-ranked passage that has one
            order = {p.passage_id: i for i, p in enumerate(passages)}
            spans = [min(ranked, key=lambda sp: order.get(sp.passage_id, len(order)))]
        if binding:
            key = normalize(shape_answer(binding, form))
            for sp in spans[:CHAIN_TOP]:
                if normalize(sp.text) == key:
                    return sp.text, sp.passage_id
        if not spans:
            return None, None
        return spans[0].text, spans[0].passage_id

    def compare(self, question: str, form: AnswerForm, evidence: Sequence[tuple[str, Sequence[str]]]) -> str | None:
        """'yes'/'no' or one of the options, from (entity, its passages' texts) per compared entity."""
        blocks = [Block(f"({name}, {form.focus or question}, ?v{i + 1})", "recovered", None, [t for t in texts if t])
                  for i, (name, texts) in enumerate(evidence)]
        return compare_answer(question, form, blocks)


def text_reader(env) -> TextReader:
    """The role factory: the reader over this answer's graph view, with the graph's linker and matcher."""
    return TextReader(env.graph.view, env.services.catalog.link_mentions, env.services.matcher)


def text_answer(reader: TextReader, retrieve: Callable[[str, int], list[PassageHit]], question: str,
                link_mentions: Callable[[str], list], *, anchor: str | None = None, chain: Sequence[str] = (),
                passages: int = READ_PASSAGES, compare: int = COMPARE_PASSAGES) -> tuple[str | None, list[PassageHit], str | None]:
    """(answer, passages read, passage id of the answer) for `question` from text alone.

    retrieve(query, k) -> ranked passages. A yes/no or choice question naming two or more entities is
    answered from each one's passages (`compare` each); any other from the passages retrieved for
    the question with the chain's last binding (`anchor`), which is then known, not an answer.
    """
    form = analysed(question).form
    if form.compares:
        names = list(form.options) if form.kind == "choice" else named_in(question, link_mentions)
        if len(names) >= 2:
            evidence, read = [], []
            for name in names:
                hits = retrieve(f"{name} {question}", compare)
                read += hits
                evidence.append((name, [h.text for h in hits]))
            return reader.compare(question, form, evidence), read, None
        if form.kind == "yesno":
            return None, [], None
    hits = retrieve(f"{anchor} {question}" if anchor else question, passages)
    answer, passage_id = reader.answer(question, hits, known=[anchor] if anchor else [], chain=chain, form=form)
    return answer, hits, passage_id


def named_in(question: str, link_mentions: Callable[[str], list]) -> list[str]:
    """The names a question mentions (linked, or capitalised runs), longest first where they overlap, in
    question order; for "A and B", just that pair."""
    spans = [(s, e) for s, e, _eid, _surface in link_mentions(question)]
    spans += _caps_spans(question)
    opener = len(question) - len(question.lstrip()) + len(question.split()[0]) if question.split() else 0
    spans = [(max(s, opener + 1) if s < opener else s, e) for s, e in spans if e > opener + 1]
    spans.sort(key=lambda t: (t[0], -(t[1] - t[0])))
    picked, end = [], -1
    for s, e in spans:
        if s >= end and question[s:e].strip():
            picked.append((s, e))
            end = max(end, e)
    # "A and B": the compared pair is the two names joined by "and", when the question names more
    for (s1, e1), (s2, e2) in pairwise(picked):
        if question[e1:s2].strip(" ,") in ("and", "&"):
            return [question[s1:e1].strip(), question[s2:e2].strip()]
    return list(dict.fromkeys(question[s:e].strip() for s, e in picked))


_CAPS_NAME = re.compile(r"(?:[A-Z][\w'’\-.]*)(?:\s+(?:of|the|de|[A-Z][\w'’\-.]*))*")


def _caps_spans(text: str) -> list[tuple[int, int]]:
    out = []
    for m in _CAPS_NAME.finditer(text):
        toks = m.group().split()
        while toks and toks[-1] in NAME_LINKERS:
            toks.pop()
        if toks:
            out.append((m.start(), m.start() + len(" ".join(toks))))
    return out
