"""The offline answer's hot path: the same results with fewer reads, round trips and less Python.

Each shortcut is checked against the slower way it replaced: the whole-word
name search against the regex it was, the planner's path scoring against the
token-by-token version, the planner's early stop against a search without it,
and the chain CARE's critic reads against a separate `trace/chain` read.
"""
from __future__ import annotations

import random
import re

import numpy as np
import pytest
from test_offline_agents import TRIPLES as TOY_TRIPLES
from test_offline_agents import ToyGraph, matcher  # noqa: F401  (the MiniLM matcher fixture)

from kgtool.core.text import Token, fold
from kgtool.reason.agents.offline.common import _name_spans
from kgtool.reason.agents.offline.planner import OfflinePlanner, _Hop
from kgtool.reason.relmatch import TextAnalysis


def regex_name_spans(text, names):
    """The whole-word search as it was written before: one compiled pattern per name."""
    low, spans = fold(text), []
    for name in names:
        n = fold(name).strip()
        if n:
            spans += [m.span() for m in re.finditer(r"(?<!\w)" + re.escape(n) + r"(?!\w)", low)]
    return spans


def test_name_spans_find_what_the_whole_word_regex_finds():
    cases = [
        ("Hey Jude was performed by the Beatles.", ["Hey Jude", "beatles", "Jude", "the"]),
        ("Jude_x Jude-x xJude Jude", ["Jude"]),  # the underscore is a word character, the hyphen is not
        ("Ærø and Ærøskøbing; ÆRØ.", ["ærø"]),  # folded case and accents, non-ASCII word characters
        ("aaa aa a", ["aa", "a", "aaa"]),  # matches do not overlap; a failed boundary moves on by one
        ("Foo (Bar) Foo.Bar", ["Foo", "(Bar)", "Foo.Bar", "", "  "]),
        ("Nr. 7 and 7a, 77", ["7"]),
    ]
    for text, names in cases:
        assert _name_spans(text, names) == regex_name_spans(text, names), (text, names)
    rng = random.Random(11)
    alphabet = "ab _-.é1Åß'()"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
        names = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4))) for _ in range(2)]
        assert _name_spans(text, names) == regex_name_spans(text, names), (text, names)


def reference_score(planner, hops, analysis):
    """OfflinePlanner._score as it was written token by token, on numpy scalars."""
    n = analysis.size
    owned = [[] for _ in hops]
    credited = np.zeros(n, dtype=np.float32)
    if not hops:
        return 0.0, owned, credited
    stems = [t.stem for t in analysis.tokens]
    owned_stems = [set() for _ in hops]
    mat = np.stack([h.scores for h in hops]) if n else np.zeros((len(hops), 0))
    order = np.argsort(-mat.max(axis=0), kind="stable") if n else []
    for t in order:
        col = mat[:, t]
        top = col.max()
        if top < planner.claim:
            continue
        tied = [h for h in range(len(hops))
                if col[h] >= top - 1e-6 and not hops[h].silent and stems[t] not in owned_stems[h]]
        if not tied:
            continue
        h = min(tied, key=lambda i: (len(owned[i]), i))
        owned[h].append(int(t))
        owned_stems[h].add(stems[t])
        credited[t] = top
    cost = sum(planner.silent_cost if (hop.silent or not owned[h]) else planner.hop_cost
               for h, hop in enumerate(hops))
    return float(credited.sum()) - cost, owned, credited


def test_path_scores_are_the_token_by_token_scores():
    planner = OfflinePlanner(None, None)
    rng = np.random.default_rng(5)
    # values that tie exactly, or fall just inside or outside the 1e-6 tie margin, or sit at the claim level
    values = np.array([0.0, 0.3, 0.5, 0.4999999, 0.75, 0.9999990, 0.9999995, 1.0], dtype=np.float32)
    checked = 0
    for _ in range(2000):
        n = int(rng.integers(0, 7))
        stems = [str(s) for s in rng.integers(0, 3, size=n)]  # repeated stems: one hop owns a word once
        analysis = TextAnalysis("q", [Token(s, s, 0, 1, True) for s in stems], [], [], np.zeros((0, 1)))
        hops = tuple(_Hop(None, f"r{k}", "out", rng.choice(values, size=n).astype(np.float32),
                          silent=bool(rng.random() < 0.2)) for k in range(int(rng.integers(0, 5))))
        score, owned, credited = planner._score(hops, analysis)
        ref_score, ref_owned, ref_credited = reference_score(planner, hops, analysis)
        assert score == ref_score and owned == ref_owned
        assert credited.dtype == ref_credited.dtype and np.array_equal(credited, ref_credited)
        checked += any(owned)
    assert checked > 500  # most draws own something, so the ties were really exercised


class UnsettledPlanner(OfflinePlanner):
    """The search without its early stop: it reads every depth it can grow into."""

    def _settled(self, beam, best, n):
        return False


QUESTIONS = [
    "What is the capital of the country of citizenship of Tobin Voss?",
    "What is the capital of the country where the spouse of Mara Voss holds citizenship?",
    "Which city is the capital of the country of citizenship of the child of Mara Voss?",
    "What is the official language of the country whose citizen is married to Mara Voss?",
    "Who is the head of state of the country whose citizen is the head of state of Ostrana?",
    "Who founded Aurora Pictures?",
    "Where is the headquarters of Aurora Pictures located?",
    "What is the capital of Atlantis?",
    "Who is the spouse of the founder of Aurora Pictures?",
]


# Tobin Voss also holds a second citizenship, of a country with no capital on record: the path
# through it explains "country of citizenship" and can only go on through unnamed links
TRIPLES = [*TOY_TRIPLES, ("tobin", "citizenship", "kessel"), ("kessel", "language", "ostranian")]


def test_the_planner_stops_early_only_when_nothing_left_could_win(matcher):  # noqa: F811
    for question in QUESTIONS:
        fast_graph, full_graph = ToyGraph(TRIPLES), ToyGraph(TRIPLES)
        fast = OfflinePlanner(fast_graph, matcher).plan(question)
        full = UnsettledPlanner(full_graph, matcher).plan(question)
        assert vars(fast) == vars(full), question
        assert fast_graph.reads <= full_graph.reads
    # Every word of this question is a relation's own word. Once citizenship -> capital explains
    # it all, the states that went on through the other country (an unnamed link after it) cannot
    # catch up, and the neighbourhoods they would grow into are not read.
    # (the word-coverage search itself, which the structured search falls back to)
    graph, full_graph = ToyGraph(TRIPLES), ToyGraph(TRIPLES)
    plan = OfflinePlanner(graph, matcher, structured=False).plan(QUESTIONS[0])
    assert plan.relations == ["citizenship", "capital"] and plan.entities == ["caldera", "emberfall"]
    UnsettledPlanner(full_graph, matcher, structured=False).plan(QUESTIONS[0])
    assert (graph.reads, full_graph.reads) == (2, 3)


def test_a_planner_that_pays_nothing_for_hops_never_stops_early(matcher):  # noqa: F811
    planner = OfflinePlanner(ToyGraph(), matcher, hop_cost=-0.1)
    assert not planner._settled([], best=type("Best", (), {"score": 1e9})(), n=3)


@pytest.fixture
def counted(kg_session):
    """Statement names run through `Database.run_in` while a test runs."""
    names: list[str] = []
    real = kg_session.db.run_in

    def counting(session, name, /, **params):
        names.append(name)
        return real(session, name, **params)

    kg_session.db.run_in = counting
    yield names
    del kg_session.db.run_in


def test_care_reads_the_chain_it_judges_in_the_statement_that_records_it(sample_kg, counted):
    from test_answer import sample_questions

    item = sample_questions()[0]
    result = sample_kg.answer(item["question"], agents="offline")
    assert result.status == "answered" and result.backtracks == 0
    assert counted.count("hop/record_step") == 1 and "trace/chain" not in counted
    # what the critic judged is what the database holds for the chain
    trace = sample_kg.trace(result.run_id)
    assert [s["chosen"] for s in trace["steps"] if s["in_chain"]] == [h["fact_id"] for h in result.chain]


def test_recorded_steps_come_back_with_the_chain_as_trace_chain_reads_it(sample_kg):
    from kgtool.core.scope import Scope
    from kgtool.reason.trace import TraceRecorder, candidate_row
    from kgtool.retrieve.hop import HopRetriever

    kg = sample_kg
    topic = kg.catalog.link("Hey Jude")  # the sample's first question starts there
    with kg.db.session() as session:
        trace = TraceRecorder(kg.db, session)
        trace.start_run("q?", "test", "none", Scope(), {}, {})
        retriever = HopRetriever(kg.db)
        ranked = retriever.rank("performer", retriever.pool(session, topic, Scope()), 3)
        assert topic and ranked
        first = TraceRecorder.step_row(hop=1, query="q1", candidates=[candidate_row(c) for c in ranked], gamma=1.5,
                                       entity_id=topic, entity="x", chosen=ranked[0], answer_id="a", answer="A")
        second = TraceRecorder.step_row(hop=2, query="q2", candidates=[], gamma=1.5, prev_step_id=first["id"],
                                        answer="B", generated=True)
        ids = [first["id"], second["id"]]
        stored, chain = trace.record_steps_and_chain([first, second], ids)
        assert [s.step_id for s in stored] == ids
        assert chain == trace.chain(ids)
        assert [r["step_id"] for r in chain] == ids and chain[0]["fact_id"] == ranked[0].fact_id
        assert chain[1]["fact_id"] is None and chain[1]["generated"] is True
        # without chain ids, the same write returns no chain (the hop bench and the other methods)
        third = TraceRecorder.step_row(hop=3, query="q3", candidates=[], gamma=1.5, prev_step_id=second["id"])
        assert trace.record_steps_and_chain([third], None)[1] == []
