"""The question reader on structures: each case is a shape of English, with made-up words for relations.

The relation words here ("zorb", "flimp", ...) are nonsense on purpose: the reader must find the
phrases and their order from the structure alone, whatever the words are.
"""
from __future__ import annotations

import pytest

from kgtool.reason.question import read_question

TOPIC = "Quux Blarg"


def phrases(question: str) -> list[str]:
    start = question.index(TOPIC)
    reading = read_question(question, (start, start + len(TOPIC)))
    return [(" ".join(s.content)) for s in reading.required]


def answer_type(question: str) -> str | None:
    start = question.index(TOPIC)
    return read_question(question, (start, start + len(TOPIC))).answer_type


@pytest.mark.parametrize("question, expected", [
    # possessive chains read outwards to the right, any length
    (f"What is {TOPIC}'s zorb?", ["zorb"]),
    (f"Who is {TOPIC}'s zorb's flimp's grob's wint?", ["zorb", "flimp", "grob", "wint"]),
    (f"what is the {TOPIC} 's zorb 's flimp ?", ["zorb", "flimp"]),  # spaced tokens, lower case
    # "of" chains read outwards to the left
    (f"What is the wint of the grob of the flimp of the zorb of {TOPIC}?", ["zorb", "flimp", "grob", "wint"]),
    (f"the flimp of zorb of {TOPIC}", ["zorb", "flimp"]),  # without articles
    # mixed: possessives bind tighter than "of"
    (f"What is the grob of the flimp of {TOPIC}'s zorb?", ["zorb", "flimp", "grob"]),
    (f"the grob of flimp of {TOPIC} 's zorb", ["zorb", "flimp", "grob"]),
    # a noun with a bare "of" complement after a possessive stays one phrase
    (f"What is {TOPIC}'s zorb of flimp?", ["zorb flimp"]),
    # ... and so does a bare noun after "of" between two noun phrases with articles
    (f"What is the grob of flimp of the zorb of {TOPIC}?", ["zorb", "grob flimp"]),
])
def test_possessive_and_of_chains(question, expected):
    assert phrases(question) == expected


@pytest.mark.parametrize("question, expected", [
    # a participle clause before the topic is one phrase with its head noun
    (f"Who is the wint of the glorp zorbing {TOPIC}?", ["glorp zorbing", "wint"]),
    (f"Who is the wint of the glorp flimped by {TOPIC}?", ["glorp flimped", "wint"]),
    # a relative clause whose verb follows the topic: the verb joins the clause's head
    (f"Who is the wint of the glorp {TOPIC} zorbs for?", ["glorp zorbs", "wint"]),
    (f"Who is the wint of the glorp where {TOPIC} was zorbed?", ["glorp zorbed", "wint"]),
    (f"Who is the wint of the glorp that {TOPIC}'s flimp zorbs with?", ["flimp", "glorp zorbs", "wint"]),
    # a subject with its own "of" argument inside the clause
    (f"Who is the wint of the glorp where the flimp of {TOPIC} was zorbed?", ["flimp", "glorp zorbed", "wint"]),
    # a clause on a generic head says its relation with its verb and its object's noun together
    (f"Who is the wint of the person who grobs the glorp of {TOPIC}?", ["person grobs glorp", "wint"]),
    # "whose" opens a layer of its own inside the head's
    (f"What is the wint of the glorp whose zorb is flimped by {TOPIC}?", ["zorb flimped", "glorp", "wint"]),
    # nested clauses, each complete, innermost first
    (f"Who is the wint of the person who grobs the glorp zorbing {TOPIC}?",
     ["glorp zorbing", "person grobs", "wint"]),
    # a relative pronoun waiting for its verb takes the word after an article-led topic: "the" is the name's
    (f"Who zorbs the glorp that the {TOPIC} flimps?", ["glorp flimps", "zorbs"]),
])
def test_relative_clauses(question, expected):
    assert phrases(question) == expected


@pytest.mark.parametrize("question, expected, kind", [
    # the frame's verb is the last relation
    (f"Where was {TOPIC}'s zorb flimped?", ["zorb", "flimped"], "place"),
    (f"Where does {TOPIC}'s zorb flimp?", ["zorb", "flimp"], "place"),  # do-support: the last word is the verb
    (f"Where does {TOPIC}'s zorb come from?", ["zorb", "come"], "place"),
    (f"{TOPIC}'s zorb's flimp is a grob of which wint?", ["zorb", "flimp", "grob wint"], "wint"),
    (f"Which wint is the flimp of {TOPIC} a grob of?", ["flimp", "wint grob"], "wint"),
    (f"The flimp of the zorb of {TOPIC} was grobbed in which wint?", ["zorb", "flimp", "grobbed wint"], "wint"),
    # a frame naming only the answer's type is a hint, not a relation
    (f"Which wint is the zorb of {TOPIC}?", ["zorb"], "wint"),
    (f"Who is {TOPIC}'s zorb?", ["zorb"], "person"),
    (f"Name the zorb of {TOPIC}.", ["zorb"], None),
    # "the name of" names the answer, not a relation
    (f"What is the name of the zorb of {TOPIC}?", ["zorb"], None),
    # a frame with only a type and nothing else: the type is all there is
    (f"Who is {TOPIC}'s zorb married to?", ["zorb", "married"], "person"),  # a participle after the subject
    (f"Which wint is {TOPIC} in?", ["wint"], "wint"),
])
def test_question_frames(question, expected, kind):
    assert phrases(question) == expected
    assert answer_type(question) == kind


def test_spans_point_at_the_words():
    question = f"Who is the flimp of {TOPIC}'s zorb?"
    start = question.index(TOPIC)
    reading = read_question(question, (start, start + len(TOPIC)))
    for segment in reading.segments:
        for word, (s, e) in zip(segment.words, segment.spans):
            assert question[s:e] == word
    assert [s.text for s in reading.segments] == ["zorb", "flimp"]


def test_a_finite_verb_before_a_preposition_is_the_frames_verb_not_part_of_the_answers_type():
    def reading(question: str, topic: str):
        start = question.index(topic)
        return read_question(question, (start, start + len(topic)))

    # "runs" is the frame's verb: the answer is a river, and the frame names a relation the chain must explain
    got = reading("Which stream runs through the town where Ostrel Works is based?", "Ostrel Works")
    assert got.answer_type == "stream"
    assert [s.optional for s in got.segments if "runs" in s.words] == [False]
    # a compound WordNet lists as one noun stays the answer's type
    assert reading("Which football teams in Varnholm won?", "Varnholm").answer_type == "football teams"
