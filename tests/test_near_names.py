"""A question that misspells its name still finds the entity; a far or ambiguous name does not.

kgtool.ingest.near_names reads a question whose names link nothing for names a slip away from the
graph's: in memory (the bounds: edits by name length, the nearest name only when it is the only one at
that distance, an exact name never replaced), then through the methods on a real graph.
"""
from __future__ import annotations

import pytest

from helpers import ingest_triples
from kgtool.config import Settings
from kgtool.errors import ConfigError
from kgtool.ingest.linking import _needs_exact_case
from kgtool.ingest.near_names import asks_question, fuzzy_query, near_mentions

NAMES = [("e:velaprin", ["Velaprin"]), ("e:harwick", ["Harwick Rovers"]), ("e:harwich", ["Harwich Rovers"]),
         ("e:lanning", ["Lanning's disease"]), ("e:aarn", ["Aarn"])]


def linked(question: str) -> list[tuple[str, str]]:
    return [(m.surface, m.entity_id) for m in near_mentions(question, NAMES)]


def test_a_slip_in_a_name_links_the_nearest_name():
    assert linked("What does Velprin treat?") == [("Velprin", "e:velaprin")]
    assert linked("what does velaprn treat") == [("velaprn", "e:velaprin")]  # a question typed in lower case
    assert linked("Who coaches Harwik Rovers?") == [("Harwik Rovers", "e:harwick")]
    assert linked("What treats Lannings disease?") == [("Lannings disease", "e:lanning")]  # words joined


def test_a_name_too_far_short_or_between_two_names_is_not_guessed():
    assert linked("What does Velxxrin treat?") == []  # two slips in eight letters: another name
    assert linked("Where is Arn?") == []  # four letters: one slip is another name as often as a typo
    assert linked("Who coaches Harwicx Rovers?") == []  # as near Harwick Rovers as Harwich Rovers
    assert linked("Who coaches Harwick Rovers FC?") == []  # written as a name is: the linker's, not a slip


def test_only_name_like_words_are_looked_up():
    assert fuzzy_query("What does Velprin treat?") == "velprin~1"  # "What" opens; "treat" is lower-case
    assert fuzzy_query("Which company bought Marrowfield Instruments?") == "marrowfield~2 instruments~2"
    assert fuzzy_query("who is it") == ""  # function words and short words only


def test_only_questions_are_read_for_slips():
    assert asks_question("Who developed Crnolix?") and asks_question("name the founder of Tallis Group")
    assert not asks_question("Crnolix was developed by a company in Ketterby.")
    assert not asks_question(" ".join(["word"] * 60) + "?")


def test_a_code_with_digits_links_in_any_case():
    assert not _needs_exact_case("KRX4")  # "krx4" is no ordinary word
    assert _needs_exact_case("NATO") and _needs_exact_case("US") and _needs_exact_case("MP3")


def test_the_setting_reads_true_and_false():
    assert Settings.from_mapping({"near_names": "false"}).near_names is False
    assert Settings.from_mapping({"near_names": "1"}).near_names is True
    with pytest.raises(ConfigError, match="near_names"):
        Settings.from_mapping({"near_names": "sometimes"})


FACTS = [("Crenolix", "developed by", "Halden Biologics"), ("Halden Biologics", "founded by", "Elias Varga"),
         ("KRX4", "expressed in", "liver"), ("Velaprin", "targets", "KRX4")]


@pytest.fixture
def drug_kg(kg, tmp_path):
    ingest_triples(kg, tmp_path / "kg.jsonl", FACTS)
    return kg


@pytest.mark.parametrize("method", ["care", "c2rag"])
def test_a_misspelt_question_is_answered_about_the_entity_meant(drug_kg, method):
    result = drug_kg.answer("Who founded the company that developed Crnolix?", method=method, agents="offline")
    assert (result.answer, result.status) == ("Elias Varga", "answered"), result.reason
    result = drug_kg.answer("in which tissue is krx4 expressed", method=method, agents="offline")
    assert (result.answer, result.status) == ("liver", "answered"), result.reason
    result = drug_kg.answer("Who developed Qwertyx?", method=method, agents="offline")  # nothing near
    assert result.status != "answered" and "no entity" in (result.reason or ""), result.reason


def test_near_names_off_links_names_only_as_written(drug_kg):
    catalog = drug_kg.catalog
    catalog.near_names = False
    try:
        result = drug_kg.answer("Who developed Crnolix?", method="care", agents="offline")
        assert result.status != "answered" and "no entity" in (result.reason or ""), result.reason
    finally:
        catalog.near_names = True
    assert drug_kg.answer("Who developed Crnolix?", method="care", agents="offline").answer == "Halden Biologics"
