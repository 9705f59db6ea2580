"""Honest statuses on text: an answer reached through a hop read from a passage is `answered` only when
the text confirms it (kgtool.reason.text_evidence). The passages are invented here, never dev data."""
from __future__ import annotations

import pytest
from helpers import ingest_documents

from kgtool.core.scope import Scope
from kgtool.core.types import CandidateFact
from kgtool.reason.context import HopState
from kgtool.reason.status import reads_text, settle
from kgtool.reason.text_evidence import TextEvidence, _asked_of, anchored, asked_kind, description_heads, is_kind, kind_senses
from kgtool.reason.lexicon import Lexicon

DOCS = [
    {"id": "p0", "title": "Harl Vesta", "text": "Harl Vesta is a small town in the Orrin Valley. "
                                              "It grew around a ferry crossing."},
    {"id": "p1", "title": "Tarrow Falcons", "text": "The Tarrow Falcons are a football team based in Harl Vesta. "
                                                  "The team was founded by Mara Quell in 1931."},
    {"id": "p2", "title": "Mara Quell", "text": "Mara Quell (born 1899) was a Dunmarsh engineer and sports patron."},
    {"id": "p3", "title": "Dunmarsh", "text": "Dunmarsh is a state in the north of Velmark. Its capital is Harl "
                                             "Vesta, and its largest airport is Orrin Field."},
    {"id": "p4", "title": "Kessa Ironworks", "text": "Kessa Ironworks was a foundry on the Orrin river, "
                                                   "run by Ivo Brand, who bought it in 1920."},
]


@pytest.fixture
def text_kg(kg, tmp_path):
    ingest_documents(kg, tmp_path / "docs.jsonl", DOCS)
    return kg


def text_hop(answer: str, *, entity: str = "Tarrow Falcons", step_id: str = "no-step") -> HopState:
    """A hop textual recovery answered from a passage (no fact)."""
    return HopState(step_id, 1, f"({entity}, ?)", None, entity, None, None, answer)


def gaps_of(kg, question: str, chain: list[HopState]) -> list[str]:
    last = chain[-1]
    with kg.db.session() as session:
        return TextEvidence(kg.db, session, Scope()).gaps(question, chain, last.answer,
                                                          kg.catalog.link(last.answer))


def test_the_question_word_and_its_noun_say_the_kind_asked_for():
    assert asked_kind("The Tarrow Falcons are based in what state?") == ("place", "state")
    assert asked_kind("What is the name of the airport in the state where Kessa lies?")[1] == "airport"
    assert asked_kind("Which Velmark engineer, known for bridges, founded the team?")[1] == "engineer"
    assert asked_kind("Who founded the Tarrow Falcons?") == ("person", "person")
    assert asked_kind("Where was Mara Quell born?") == ("place", "location")
    assert asked_kind("What body of water is near Harl Vesta?")[1] == "body of water"
    assert asked_kind("What county shares a border with Orrin?")[1] == "county"
    assert asked_kind("When was the team founded?") == ("date", None)
    assert asked_kind("Are Harl Vesta and Dunmarsh both towns?") == ("yesno", None)
    assert asked_kind("What did Mara Quell use as a model?") == ("entity", None)  # no kind: nothing to confirm


def test_a_description_is_read_from_a_copula_an_apposition_a_predicate_or_a_who_clause():
    assert description_heads("Mara Quell (born 1899) was a Dunmarsh engineer and sports patron.", "Mara Quell",
                             own_page=False) == ["engineer", "patron"]
    assert description_heads("The club moved to Harl Vesta, a town on the river, in 1950.", "Harl Vesta",
                             own_page=False) == ["town"]
    assert description_heads("Its largest airport is Orrin Field.", "Orrin Field", own_page=False) == ["airport"]
    assert description_heads("It was run by Ivo Brand, who bought it.", "Ivo Brand", own_page=False) == ["person"]
    # on its own page the opening copula describes the page's subject however the page writes its name
    assert description_heads("Maria Quell was an engineer.", "Mara Quell", own_page=True) == ["engineer"]
    assert description_heads("Maria Quell was an engineer.", "Mara Quell", own_page=False) == []


def test_a_describing_noun_is_of_the_kind_when_the_kind_is_among_its_wordnet_hypernyms():
    lex = Lexicon.load()
    assert lex is not None, "WordNet (the lexicon extra) is part of the test environment"
    state, person = kind_senses(lex, "state"), kind_senses(lex, "person")
    assert is_kind(lex, "province", state) and not is_kind(lex, "town", state)
    assert is_kind(lex, "engineer", person) and is_kind(lex, "band", person)
    assert not is_kind(lex, "town", person) and not is_kind(lex, "foundry", person)


def test_a_text_answer_of_another_kind_than_asked_is_not_confirmed(text_kg):
    """'In what state are the Tarrow Falcons based?' answered with the town the team's page names: the
    town's own page says it is a town, nothing says it is a state."""
    got = gaps_of(text_kg, "The Tarrow Falcons are based in what state?", [text_hop("Harl Vesta")])
    assert got and "state" in got[0] and "town" in got[0], got
    # the same answer to the question that asks for a town is confirmed by the same page
    assert gaps_of(text_kg, "The Tarrow Falcons are based in what town?", [text_hop("Harl Vesta")]) == []


def test_who_is_confirmed_by_a_description_of_a_person_and_not_by_a_place(text_kg):
    q = "Who founded the Tarrow Falcons?"
    assert gaps_of(text_kg, q, [text_hop("Mara Quell")]) == []
    assert gaps_of(text_kg, q, [text_hop("Orrin Valley")])
    # the kind from a predicate in the sentence the last hop read, on a page the answer is not the subject of
    sentence = "Its capital is Harl Vesta, and its largest airport is Orrin Field."
    read = CandidateFact("p3#0", "dunmarsh", "Dunmarsh", "has", "orrin", "Orrin Field", sentence, stated=False)
    hop = HopState("no-step", 1, "(Dunmarsh, ?)", "dunmarsh", "Dunmarsh", read, None, "Orrin Field")
    assert gaps_of(text_kg, "What is the main airport of Dunmarsh?", [hop]) == []
    assert gaps_of(text_kg, "What is the main river of Dunmarsh?", [hop])


def test_a_literal_must_be_written_as_one_and_a_comparison_needs_both_sides_read(text_kg):
    assert gaps_of(text_kg, "When were the Tarrow Falcons founded?", [text_hop("Mara Quell")])
    assert gaps_of(text_kg, "When were the Tarrow Falcons founded?", [text_hop("1931")]) == []
    # a literal of the right shape is still a guess when the chain went round to reach it
    back = [text_hop("1931"), text_hop("Mara Quell", entity="1931"), text_hop("1931", entity="Mara Quell")]
    assert "comes back" in " ".join(gaps_of(text_kg, "When were the Tarrow Falcons founded?", back))
    q = "Are Harl Vesta and Dunmarsh both in Velmark?"
    one = [text_hop("yes", entity="Dunmarsh")]
    both = [text_hop("yes", entity="Harl Vesta"), HopState("s2", 2, "(Dunmarsh, ?)", None, "Dunmarsh", None, None,
                                                             "yes")]
    assert gaps_of(text_kg, q, one) and gaps_of(text_kg, q, both) == []
    q = "Which is older, Kessa Ironworks or the Tarrow Falcons?"
    assert gaps_of(text_kg, q, [text_hop("Kessa Ironworks", entity="Kessa Ironworks")])
    assert gaps_of(text_kg, q, [text_hop("1920", entity="Kessa Ironworks"), text_hop("1931")]) == []


def test_settle_asks_the_text_check_only_of_chains_that_read_text():
    asked = []

    def text_gaps():
        asked.append(True)
        return ["the text does not say"]

    stated = CandidateFact("f1", "a", "A", "capital", "b", "B", "A's capital is B.", stated=True)
    read = CandidateFact("f2", "a", "A", "capital", "b", "B", "A's capital is B.", stated=False)
    kg_chain = [HopState("s1", 1, "q", "a", "A", stated, "b", "B")]
    assert not reads_text(kg_chain)
    assert settle("answered", "B", kg_chain, None, text_gaps=text_gaps).status == "answered" and not asked
    for chain in ([HopState("s1", 1, "q", "a", "A", read, "b", "B")], [text_hop("B")]):
        assert reads_text(chain)
        got = settle("answered", "B", chain, None, text_gaps=text_gaps)
        assert (got.status, got.reason) == ("unverified", "the text does not say")
    # a chain already failing another check is not read again
    asked.clear()
    assert settle("unverified", "B", [text_hop("B")], None, text_gaps=text_gaps).status == "unverified"
    assert not asked


def test_a_text_chain_that_comes_back_to_a_thing_it_passed_through_is_not_verified(text_kg):
    """Fragments read off one page can lead from the page's subject through names it mentions and back to
    it: the subject is of the kind asked, but the way back explains nothing."""
    q = "Who founded the club that Harl Vesta hosts?"
    loop = [text_hop("Mara Quell", entity="Harl Vesta"), text_hop("Ivo Brand", entity="Mara Quell"),
            text_hop("Mara Quell", entity="Ivo Brand")]
    got = gaps_of(text_kg, q, loop)
    assert got and "comes back" in got[0], got
    assert gaps_of(text_kg, q, [text_hop("Tarrow Falcons", entity="Harl Vesta"), text_hop("Mara Quell")]) == []


def test_a_hop_read_from_a_passage_must_read_one_that_speaks_of_what_it_stood_on():
    page = {"title": "Kessa Ironworks", "text": "Kessa Ironworks was a foundry on the Orrin river.", "about": False,
            "mentions": False}
    assert anchored(page, "Kessa Ironworks (foundry)", whole=True)  # its own page, by its title
    assert anchored(page, "Orrin", whole=False)  # a phrase asked of a name the passage writes
    assert not anchored(page, "Orrin", whole=True)  # the whole question asked of it needs its own page
    assert not anchored(page, "Tarrow Falcons", whole=False)
    assert anchored({**page, "mentions": True}, "Tarrow Falcons", whole=False)  # linked at ingestion
    # the thing a whole question was asked of is read from the step's written form, whatever it stood on
    q = "Who founded the Tarrow Falcons?"
    assert _asked_of(f"(Orrin, {q}, ?answer (person))", q) == "Orrin"
    assert _asked_of("(Orrin, founded by, ?x1)", q) is None


def test_the_status_of_a_text_answer_is_answered_only_when_its_passages_confirm_its_kind(text_kg):
    """The status rule with the text check over the stored passages, as the runner calls it: the same text
    chain's answer is `answered` for the kind its page gives it and `unverified`, saying why, for another."""
    chain = [text_hop("Harl Vesta")]
    link = text_kg.catalog.link("Harl Vesta")
    with text_kg.db.session() as session:
        check = TextEvidence(text_kg.db, session, Scope())
        for question, status in (("The Tarrow Falcons are based in what town?", "answered"),
                                 ("The Tarrow Falcons are based in what state?", "unverified"),
                                 ("Who founded the Tarrow Falcons?", "unverified")):
            got = settle("answered", "Harl Vesta", chain, None,
                         text_gaps=lambda q=question: check.gaps(q, chain, "Harl Vesta", link))
            assert got.status == status, (question, got.reason)
            assert (got.reason is None) == (status == "answered"), got.reason
