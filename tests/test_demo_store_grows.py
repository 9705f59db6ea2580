"""The demo's question keeps its answer when the store grows: the README's sample, then the MQuAKE dev file.

A user's store rarely holds one corpus. After `kgtool ingest edits` of the dev file into the demo's
store, the sample's entities have more relations (and namesakes); the shared front end must still plan
the same chain for the demo question, with every method.
"""
from __future__ import annotations

from helpers import SAMPLE

QUESTION = "Who is the spouse of the head of state of the country Madonna is a citizen of?"
METHODS = ("care", "c2rag", "reagent", "safe", "vog")


def test_the_demo_question_is_answered_alike_after_the_dev_file_joins_the_store(kg, mquake_dev):
    kg.ingest_edits(SAMPLE / "edits.jsonl")
    before = {m: kg.answer(QUESTION, method=m, agents="offline") for m in METHODS}
    for method, result in before.items():
        assert result.status == "answered" and result.answer, (method, result.reason)
    assert len({r.answer for r in before.values()}) == 1, {m: r.answer for m, r in before.items()}

    kg.ingest_edits(mquake_dev)
    for method in METHODS:
        after = kg.answer(QUESTION, method=method, agents="offline")
        relations = [h.get("relation") for h in after.chain]
        assert (after.answer, after.status) == (before[method].answer, "answered"), (method, after.reason, relations)
        assert relations == [h.get("relation") for h in before[method].chain], method
