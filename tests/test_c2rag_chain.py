"""C2RAG's offline chain reading (kgtool.reason.agents.offline.c2rag_chain): how much of the planner's path
the constraint chain keeps, and when the answer lies beyond the chain's end. Graphs and passages are built
here, never dev data."""
from __future__ import annotations

import json

from kgtool.reason.agents.offline import c2rag_chain
from kgtool.reason.agents.offline.common import OfflinePlan


def _plan(question, topic, *, left=(), explained=(), relations=()):
    start = question.index(topic)
    return OfflinePlan(subquestions=[question], topic_span=(start, start + len(topic)), unexplained=list(left),
                       explained=[list(e) for e in explained], relations=list(relations))


def _beyond(question, base, said):
    return c2rag_chain.last_phrase_unexplained(question, base, c2rag_chain.reading_of(question, base), said)


def test_a_trailing_passage_hop_that_explains_no_phrase_is_cut_and_a_stated_one_kept():
    """'Who is the spouse of the director of F?': the search went on from the director through a passage
    fragment it could not match to 'spouse'. That hop is the search's guess: the chain stops at the
    director. A stated relation (a fact file's name, often sharing no word with the question) stays; and
    a path none of whose hops reads the question stays whole (there is no reading to fall back on)."""
    q = "Who is the spouse of the director of Fell Harbour?"
    base = _plan(q, "Fell Harbour", left=["spouse"], explained=[["director"], ["spouse"]],
                 relations=["rel:film directed by", "rel:a drama film written by"])
    supports = c2rag_chain.supported(c2rag_chain.reading_of(q, base), base)
    assert supports == [True, False]
    assert c2rag_chain.kept_hops(supports, base.relations, stated=set()) == 1
    assert c2rag_chain.kept_hops(supports, base.relations, stated={"rel:a drama film written by"}) == 2
    assert c2rag_chain.kept_hops([False, False], base.relations, stated=set()) == 2


def test_a_word_two_hops_account_for_is_the_earlier_hops():
    """'What county shares a border with the county where T is located?': the second hop's 'county' is
    the first hop's word; what is left to it ('border', 'shares') the plan leaves unexplained."""
    q = "What county shares a border with the county where Black Ash Township is located?"
    base = _plan(q, "Black Ash Township", left=["border with", "What county shares"],
                 explained=[["county", "located"], ["border", "county", "shares"]],
                 relations=["rel:is located in", "rel:counties in north-west"])
    assert c2rag_chain.supported(c2rag_chain.reading_of(q, base), base) == [True, False]


def test_an_unexplained_last_phrase_that_a_hop_words_or_that_only_quotes_asks_nothing_beyond_the_chain():
    """The planner may group a hop's words with the question's frame ('What is ... has a citizenship of'):
    a hop whose relation says a content word of that phrase answers it, and the chain's end stands; so
    does a phrase made of quoted words, or the answer's type with a copula. A phrase no relation words is
    asked of the chain's end."""
    q = "What is the official language of the country whose manager of Vale Rigg's performer has a citizenship of?"
    chain = ["performer", "manager", "country of citizenship", "official language"]
    assert not _beyond(q, _plan(q, "Vale Rigg", left=["What is has citizenship of"]), chain)
    assert _beyond(q, _plan(q, "Vale Rigg", left=["What is has citizenship of"]), chain[:2])
    q = 'What is the abbreviation to the magazine that called Tolk "an unusually impressive imposter"?'
    assert not _beyond(q, _plan(q, "Tolk", left=["What is unusually impressive imposter"]), ["called"])
    q = "Who was in charge of the country Marn Vale is located in?"
    assert _beyond(q, _plan(q, "Marn Vale", left=["Who was in charge"]), ["country"])
    assert not _beyond(q, _plan(q, "Marn Vale", left=[]), ["country"])
    q = "What is the name of the city that is the capital of the country where the sport Tam Oddi played was developed?"
    chain = ["position played", "sport", "country of origin", "capital"]
    assert not _beyond(q, _plan(q, "Tam Oddi", left=["city that is"]), chain)


BEYOND_DOCS = [
    {"id": "t0", "title": "Marn Vale", "text": "Marn Vale is a village in the country of Tarovia."},
    {"id": "t1", "title": "Tarovia", "text": "Tarovia is a small country. From 1990 to 1999, Tarovia was governed "
                                             "by Lio Danter, who was then in charge of the whole country."},
    {"id": "t2", "title": "Osk", "text": "Osk is a river port with a large fish market."},
]
BEYOND_FACTS = [
    {"head": "Marn Vale", "relation": "country", "tail": "Tarovia"},
    {"head": "Tarovia", "relation": "capital", "tail": "Osk"},
]


def _ingest(kg, tmp_path, facts, docs):
    f, d = tmp_path / "facts.jsonl", tmp_path / "docs.jsonl"
    if facts:
        f.write_text("\n".join(json.dumps(x) for x in facts) + "\n")
        kg.ingest_facts(f)
    d.write_text("\n".join(json.dumps(x) for x in docs) + "\n")
    kg.ingest_docs(d, format="jsonl")


def test_c2rag_asks_the_outermost_phrase_of_the_chains_end_when_no_relation_says_it(kg, tmp_path):
    """'Who was in charge of the country X is in?': the passages say X's country, and no relation read
    from them says who was in charge of it. The chain ends at a bridge: one more constraint asks the
    phrase of the bridge, and the answer is read about it, not taken from the chain (the country)."""
    _ingest(kg, tmp_path, [], BEYOND_DOCS)
    result = kg.answer("Who was in charge of the country Marn Vale is located in?", method="c2rag", agents="offline")
    trace = kg.trace(result.run_id)
    constraints = sorted(trace["constraints"], key=lambda k: k["index"])
    assert constraints[0]["binding"][:1] == ["Tarovia"]
    assert len(constraints) == 2 and "Who was in charge" in constraints[1]["pattern"]
    # the phrase asked of the chain's end (the step's text starts at its anchor)
    assert any(s["query"].startswith("(Tarovia, Who was in charge") for s in trace["steps"])
    assert result.answer == "Lio Danter"


def test_a_chain_ending_on_a_stated_relation_is_not_sent_beyond_its_end(kg, tmp_path):
    """The same question where a fact file states X's country: the chain ends where the graph's own
    vocabulary leads, and no constraint is added beyond it (the store's text is not asked instead)."""
    _ingest(kg, tmp_path, BEYOND_FACTS, BEYOND_DOCS[1:])
    result = kg.answer("Who was in charge of the country Marn Vale is located in?", method="c2rag", agents="offline")
    trace = kg.trace(result.run_id)
    assert [k["pattern"] for k in trace["constraints"]] == ["(Marn Vale, country, ?x1 (person))"]


def test_a_chain_end_read_forwards_through_a_relation_named_after_the_asked_kind_is_of_that_kind():
    """'What currency is used in the country whose capital is X?': a chain whose last hop reads a
    `currency` relation forwards ends at a currency, what the question's noun asks for; the words the
    planner leaves ('used in') say more of that answer and ask nothing beyond it. Read backwards, or
    through a relation named otherwise, the label says nothing of the end's kind."""
    q = "What currency is used in the country whose capital is Kell Harbour?"
    reading = c2rag_chain.reading_of(q, _plan(q, "Kell Harbour"))
    assert c2rag_chain.end_of_asked_kind(reading, "currency", "out", None, {}, None)
    assert not c2rag_chain.end_of_asked_kind(reading, "currency", "in", None, {}, None)
    assert not c2rag_chain.end_of_asked_kind(reading, "capital of", "out", None, {}, None)
    # a question whose word asks for a person names no kind a relation could name
    q = "Who was in charge of the country Marn Vale is located in?"
    reading = c2rag_chain.reading_of(q, _plan(q, "Marn Vale"))
    assert not c2rag_chain.end_of_asked_kind(reading, "leader", "out", None, {}, None)


UNSAID_DOCS = [
    {"id": "u0", "title": "Kessa Dune", "text": "Kessa Dune is a town in the central Orro region of Velmark. "
                                                "It is mostly inhabited by herders of the Orro clan."},
    {"id": "u1", "title": "Velmark", "text": "On 10 May 2011, parliament elected Tamsin Roe as the new President "
                                             "of Velmark. President Roe later appointed Ivo Brand as Prime Minister."},
    {"id": "u2", "title": "Pellow Harbour", "text": "Dorrin Hale was in charge of the harbour works at Pellow "
                                                    "for many years."},
]


def test_a_passage_hop_whose_words_say_no_phrase_of_the_question_is_not_walked(kg, tmp_path):
    """'Who was in charge of the country Kessa Dune is located in?': the passages give Kessa Dune a
    relation read from a sentence fragment ('region of') that the search credits with 'country ...
    located', though its words say neither. The chain does not walk it: each phrase of the question is
    asked of text in turn (the country of Kessa Dune, then who was in charge of it), each read from the
    pages about what the hop is asked of, and the answer is the person the country's page names."""
    _ingest(kg, tmp_path, [], UNSAID_DOCS)
    q = "Who was in charge of the country Kessa Dune is located in?"
    result = kg.answer(q, method="c2rag", agents="offline")
    trace = kg.trace(result.run_id)
    patterns = [k["pattern"] for k in sorted(trace["constraints"], key=lambda k: k["index"])]
    assert patterns[0].startswith("(Kessa Dune, country is located in, ?x1")
    assert any("Who was in charge" in p for p in patterns[1:])
    assert result.answer == "Tamsin Roe"


def test_a_relation_label_says_a_phrase_only_where_it_explains_one_of_its_words(kg_session):
    """The label alone is read, not the sentence it came from: 'directed by' says 'director', a
    fragment about a region says nothing of 'country is located in', nor does any label say a hop
    that accounts for no phrase."""
    m = kg_session.matcher
    assert c2rag_chain.said(m, "romantic drama film directed by", ["director"])
    assert not c2rag_chain.said(m, "region of", ["country is located in"])
    assert not c2rag_chain.said(m, "a silent drama film directed and written by", ["spouse"])
    assert not c2rag_chain.said(m, "and", [])


def test_the_phrases_beyond_the_kept_hops_are_asked_one_by_one_unless_the_reading_left_a_clause_whole():
    """After the hops kept, each relation phrase of the question is one constraint; a last phrase that
    only names the answer's type asks nothing; a 'phrase' of more content words than one relation has
    is a clause the reading did not split, and the search's path stands."""
    q = "Who was in charge of the country Marn Vale is located in?"
    base = _plan(q, "Marn Vale", left=["country is located in", "Who was in charge"], explained=[["country"]],
                 relations=["rel:region of"])
    reading = c2rag_chain.reading_of(q, base)
    assert c2rag_chain.phrases_beyond(reading, base, 0) == ["country is located in", "Who was in charge"]
    assert c2rag_chain.phrases_beyond(reading, base, 1) == ["Who was in charge"]
    q = "Which city is Kell Harbour's place of birth?"
    base = _plan(q, "Kell Harbour", explained=[["place", "birth"]], relations=["rel:born in"])
    assert c2rag_chain.phrases_beyond(c2rag_chain.reading_of(q, base), base, 0) == ["place of birth"]
    q = "The song by Tam Oddi was included in an album by a singer that has sold how many records worldwide?"
    base = _plan(q, "Tam Oddi", relations=["rel:with"], explained=[[]])
    assert c2rag_chain.phrases_beyond(c2rag_chain.reading_of(q, base), base, 0) is None


def test_a_phrase_of_only_the_asked_kind_or_the_asked_noun_compound_is_the_answer_not_a_relation():
    """'What kind of school ...', 'What body of water ...': the reading splits the asked noun at 'of' and
    leaves 'What kind' / 'What body' as a last phrase. It names what the answer is, not a relation of it,
    so no constraint asks it; the phrase holding the noun's other words and a relation ('water is near')
    stays. A noun after a copula ('What is the continental limit of ...') is the relation asked."""
    def beyond(q, topic):
        base = _plan(q, topic)
        return c2rag_chain.phrases_beyond(c2rag_chain.reading_of(q, base), base, 0)

    assert beyond("What kind of school did the author of Fell Harbour attend?", "Fell Harbour") == [
        "author", "school did attend"]
    assert beyond("What body of water is near the town where the Siege of Orrin took place?", "Siege of Orrin") == [
        "town where took place", "water is near"]
    assert beyond("What part of the state where Kell Harbour is located is Orrin in?", "Kell Harbour")[-1] == "What part"
    assert beyond("What is the continental limit of the continent with the lowest average temperature?",
                  "average temperature")[-1] == "continental limit"


def test_without_a_graph_path_the_questions_own_phrases_are_the_chain():
    """The planner found no path from the topic: a nested question ('the country where the composer of F
    was a citizen') asks each phrase of what the phrase before it reached, one constraint each, instead
    of one constraint asking all its words of the topic. One phrase alone stays the single constraint."""
    from kgtool.reason.agents.offline.c2rag import OfflineConstraintPlanner

    planner = object.__new__(OfflineConstraintPlanner)  # the phrase chain reads only the question
    q = "Who was in charge of the country where the composer of Fell Harbour was a citizen?"
    base = _plan(q, "Fell Harbour")
    base.topic = "Fell Harbour"
    plan = planner._phrase_chain(q, base)
    assert [c.pattern for c in plan.constraints] == [
        "(Fell Harbour, composer, ?x1)", "(?x1, country where was citizen, ?x2)", "(?x2, Who was in charge, ?x3)"]
    assert plan.target == "?x3"
    q = "Who is the spouse of Fell Harbour?"
    base = _plan(q, "Fell Harbour")
    base.topic = "Fell Harbour"
    assert planner._phrase_chain(q, base) is None
