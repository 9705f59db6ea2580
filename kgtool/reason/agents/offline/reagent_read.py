"""ReAgent's final answer from text: its retrieved passages and its bound chain, through the shared reader.

ReAgent's chain over a document store rests on facts the mentions extractor read
off passages, and such a chain's end is at best a bridge: over the dev files of
../shared/data/text-qa its own answers scored F1 0.011 (MuSiQue) and 0.000
(HotpotQA). So, as C2RAG does with its target's binding, the chain's answer
stands only where the passages say it: the shared offline reader
(kgtool.reason.agents.offline.text_reader.TextReader) ranks the spans of the
passages retrieved for the question, typed by the question (answer_form), and
the binding is the answer when it is among their best CHAIN_TOP spans; else the
best span is. The chain's other bindings support the spans that name them.

Passages: C2RAG's textual recovery, with its defaults: the POOL passages the
shared passage retrieval ranks first for the question's entity and the question,
reranked by C2RAG's offline reranker (how a passage says the question, half
BM25), the KEEP best read. A yes/no or choice question is answered from each
compared entity's passages, as text_answer does.

A chain whose facts an edit or a fact file states is not read here: the
method keeps it (kgtool.reason.methods.reagent), so a graph of facts answers
as it always did.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kgtool.core.text import normalize
from kgtool.core.types import PassageHit
from kgtool.reason.reading.analysis import analysed
from kgtool.reason.reading.form import fits, shape_answer
from kgtool.reason.agents.offline.text_reader import TextReader, text_answer

# C2RAG's passage_pool (K'_t) and passages (K_t) defaults: passages pooled, and read after the rerank
POOL = 8
KEEP = 3


@dataclass
class Reading:
    """What the reader made of the passages: the answer, the passages read, the one it came from, and
    whether it is the chain's own binding (the passages confirm the chain)."""

    answer: str | None
    passages: list[PassageHit]
    passage_id: str | None
    confirms: bool = False


def read_answer(reader: TextReader, reranker, retrieve: Callable[[str, int], list[PassageHit]], question: str,
                link_mentions: Callable[[str], list], *, topic: str | None, chain: Sequence[str] = (),
                binding: str | None = None) -> Reading:
    """The answer to `question` read off passages, with the chain's answers as support and its last
    binding confirmed or replaced (see the module docstring). reranker: C2RAG's offline reranker
    (kgtool.reason.agents.offline.c2rag_rerank.build_reranker(services, "offline"))."""
    form = analysed(question).form
    if form.compares:
        answer, hits, pid = text_answer(reader, retrieve, question, link_mentions, anchor=topic, chain=chain)
        return Reading(answer, hits, pid)
    pool = retrieve(f"{topic} {question}" if topic else question, POOL)
    if not pool:
        return Reading(None, [], None)
    z = reranker.score(question, question, [question], pool)
    order = sorted(range(len(pool)), key=lambda i: (-z[i], pool[i].passage_id))[:KEEP]
    hits = [pool[i] for i in order]
    binding = binding if binding and fits(binding, form) else None
    answer, pid = reader.answer(question, hits, known=[topic] if topic else [], chain=chain, binding=binding,
                                form=form)
    confirms = bool(answer and binding) and normalize(answer) == normalize(shape_answer(binding, form))
    return Reading(answer, hits, pid, confirms=confirms)
