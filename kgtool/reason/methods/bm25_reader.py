"""bm25-reader: a text-only baseline with no graph and no model.

The passage BM25 ranks first for the question (full-text pool, BM25 scorer)
is read for its best span by the offline reader C2RAG and ReAgent share
(kgtool.reason.agents.offline.text_reader): a name, date or number as the
question asks, whose sentence shares the most words with the question, and
that the question does not already name; a yes/no or choice question is
answered from the top passage of each entity it compares. The step is
recorded with its passage candidates like any other method's, so it sits in
the same tables as the methods it is a baseline for.
"""
from __future__ import annotations

from dataclasses import dataclass

from kgtool.core.configs import PartConfig, setting
from kgtool.core.types import Verdict
from kgtool.errors import ConfigError

from kgtool.reason import steps
from kgtool.reason.agents.factory import text_answer
from kgtool.reason.context import HopState, RunContext
from kgtool.reason.methods.base import Outcome
from kgtool.reason.trace import TraceRecorder, candidate_row


@dataclass(frozen=True)
class Bm25ReaderConfig(PartConfig):
    """The BM25 reader baseline's settings."""

    passages: int = setting(3, "passages ranked by BM25 and stored with the run; the first one is read")
    gamma: float = setting(1.5, "N_eff threshold recorded with the retrieval step")

    def check(self) -> None:
        if self.passages < 1:
            raise ConfigError(f"bm25-reader: passages must be at least 1, got {self.passages}")


class Bm25Reader:
    """BM25 top passage, best entity span."""

    taxonomy = None

    Config = Bm25ReaderConfig

    def __init__(self, config: Bm25ReaderConfig | None = None, /, **settings):
        self.settings = Bm25ReaderConfig.of("bm25-reader", config, settings)
        self.passages = self.settings.passages  # ranked and stored; only the first is read
        self.gamma = self.settings.gamma

    def config(self) -> dict:
        return self.settings.as_dict()

    def run(self, ctx: RunContext, question: str) -> Outcome:
        reader = ctx.role("text_reader", "offline").without_model()
        stored = steps.retrieve_passages(ctx, question, self.passages)
        # the shared offline reader on the top passage (a compared question: on each entity's top passage)
        answer, hits, _pid = text_answer(reader, lambda q, k: steps.retrieve_passages(ctx, q, k), question,
                                         ctx.services.catalog.link_mentions, passages=1, compare=1)
        hits = stored or hits
        answer_id = ctx.link(answer) if answer else None
        chosen = hits[0] if hits and answer else None
        row = TraceRecorder.step_row(hop=1, kind="passage", query=question, gamma=self.gamma,
                                     candidates=[candidate_row(h) for h in hits], chosen=chosen,
                                     answer_id=answer_id, answer=answer)
        hop = HopState(row["id"], 1, question, None, "", None, answer_id, answer)
        steps.record(ctx, [row], [hop])
        # a span of the top passage, checked against nothing: never more than unverified
        verdict = Verdict(False, None, None, "the top passage's best span; no chain checks it against the question")
        return Outcome([hop], "unverified" if answer else "no_answer", final_verdict=(hop.step_id, verdict, 1))
