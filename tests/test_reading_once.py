"""A run reads its question once (kgtool.reason.reading): the planner, the readers and the status rule
look the analysis up instead of reading the string again. Names and facts are invented."""
from __future__ import annotations

from collections import Counter

import pytest

from kgtool.core.scope import Scope
from kgtool.reason import question as question_module
from kgtool.reason.graphview import GraphView
from kgtool.reason.reading import analysis, form
from kgtool.reason.reading.analysis import analysed, bound, read

FACTS = ("head\trelation\ttail\n"
         "Ostrelia\tcapital\tTarnby\n"
         "Tarnby\tmayor\tIlse Varnow\n"
         "Ilse Varnow\tborn in\tKelmarsh\n")


def _topic(question: str, name: str) -> tuple[int, int]:
    at = question.index(name)
    return at, at + len(name)


@pytest.fixture
def counted(monkeypatch):
    """How often the reading entry point ran, and the two readings under it, per text (and topic). The two
    are counted inside their own modules (a step only they take), so a consumer that still calls
    answer_form or read_question itself, however it imported them, is counted too."""
    calls: Counter = Counter()

    def wrap(module, name, key):
        inner = getattr(module, name)

        def counting(*args, **kwargs):
            calls[key(*args)] += 1
            return inner(*args, **kwargs)
        monkeypatch.setattr(module, name, counting)

    wrap(analysis, "read", lambda question, graph_view=None: ("read", question))
    wrap(form, "choice_options", lambda question: ("form", question))  # answer_form's first step
    wrap(analysis, "read_question", lambda question, topic: ("phrases", question, tuple(topic)))
    wrap(question_module, "tokenize_question", lambda question: ("tokens", question))  # read_question's first
    analysis.forget()
    yield calls
    analysis.forget()


@pytest.mark.parametrize("method", ["care", "c2rag", "reagent"])
def test_a_run_reads_its_question_once(kg, tmp_path, counted, method):
    facts = tmp_path / "facts.tsv"
    facts.write_text(FACTS)
    kg.ingest_facts(facts)
    question = "Who is the mayor of the capital of Ostrelia?"
    answer = kg.answer(question, method=method, agents="offline")
    assert answer.answer == "Ilse Varnow", (method, answer.answer, answer.status)
    assert counted[("read", question)] == 1, counted
    assert counted[("form", question)] == 1, counted
    mine = [key for key in counted if key[0] == "phrases" and key[1] == question]
    assert mine, "the planner read the question's phrases through the analysis"
    assert all(counted[key] == 1 for key in mine), counted  # each topic's phrases read once
    assert counted[("tokens", question)] == len(mine), counted  # and by nothing but the analysis
    assert all(n == 1 for key, n in counted.items() if key[0] == "read"), counted  # rephrasings once each too


def test_what_a_question_asks_is_read_off_its_words():
    who = read("Who founded the Quibble Works?")
    assert (who.wh, who.kind, who.noun) == ("who", "person", "")
    year = read("In what year was Vardonia founded?")
    assert (year.wh, year.kind) == ("what", "year")
    yes = read("Is Tarnby older than Kelmarsh?")
    assert (yes.wh, yes.kind) == ("is", "yesno")
    choice = read("Which is older, Red Owls or Blue Pines?")
    assert choice.kind == "choice" and choice.form.options == ["Red Owls", "Blue Pines"]
    assert read("Tarnby is the capital of what?").wh == "what"
    assert read("Tarnby lies in Ostrelia.").wh == ""


def test_phrases_and_roles_are_read_per_topic_and_kept():
    question = "Which city was the founder of Quibble Works born in?"
    reading = analysed(question)
    assert reading is analysed(question)  # the memo: one reading per text
    topic = _topic(question, "Quibble Works")
    assert (reading.kind, reading.noun, reading.answer_type(topic)) == ("place", "city", "city")
    phrases = reading.phrases(topic)
    assert [p.segment for p in phrases] == list(reading.reading(topic).segments)
    founder, frame = phrases[0], phrases[-1]
    assert "founder" in founder.segment.words and founder.role.answer is None  # a noun phrase: no verb role
    assert "born" in frame.segment.words and frame.role.verb == ("born",)
    assert reading.reading(topic) is reading.reading(topic)
    assert bound(question, None).reading(topic) is reading.reading(topic)  # a run's copy shares the memo's
    candidates = reading.relation_candidates(topic, lambda phrase: [phrase.upper()])
    assert candidates["founder"] == ["FOUNDER"]


def test_mentions_are_read_through_the_graph_view(kg, tmp_path):
    facts = tmp_path / "facts.tsv"
    facts.write_text(FACTS)
    kg.ingest_facts(facts)
    question = "Who is the mayor of the capital of Ostrelia?"
    assert analysed(question).mentions is None  # no graph: nothing to link against
    view = GraphView(kg.db, kg.catalog, Scope())
    mentions = bound(question, view).mentions
    assert [question[s:e] for s, e, _id, _surface in mentions] == ["Ostrelia"]
    assert mentions[0][2] == kg.catalog.link("Ostrelia")
