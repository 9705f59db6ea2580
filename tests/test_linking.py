"""Normalisation, canonical ids and the gazetteer linker."""

from __future__ import annotations

import pytest

from kgtool.errors import InputError
from kgtool.ingest.linking import Gazetteer, Mention, canonical_id, load_nlp, normalize
from kgtool.ingest.records import BaseFact, EditRecord


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Hey Jude", "hey jude"),
        ("  “Hey   Jude.” ", "hey jude"),
        ("'Hey Jude'", "hey jude"),
        ("ＨＥＹ\u00a0Ｊｕｄｅ", "hey jude"),  # full-width letters and a no-break space
        ("Straße", "strasse"),
        ("Ta’izz", "ta'izz"),
        ("C++", "c++"),
        ("Up (film)", "up (film)"),
        ("(Hey Jude)", "hey jude"),
        ("Washington, D.C.", "washington, d.c"),
        ("Jean\u2013Paul", "jean-paul"),
    ],
)
def test_normalize(raw, expected):
    assert normalize(raw) == expected


def test_canonical_id():
    assert canonical_id("Hey Jude") == "name:hey jude"
    assert canonical_id(" hey  JUDE. ") == "name:hey jude"
    assert canonical_id("Poland", "Q36") == "Q36"
    assert canonical_id("Poland", "not-a-qid") == "name:poland"
    assert canonical_id("?") == "name:?"
    with pytest.raises(InputError, match="empty name"):
        canonical_id("   ")


@pytest.fixture()
def gazetteer():
    g = Gazetteer()
    g.add("Q30", ["United States of America", "the United States", "USA", "US", "America"])
    g.add("Q60", ["New York City", "NYC"])
    g.add("Q1384", ["New York", "New York State"])
    g.add("name:york", ["York"])
    return g


def test_link_names_and_aliases(gazetteer):
    assert gazetteer.link("United States of America") == "Q30"
    assert gazetteer.link("the united states") == "Q30"
    assert gazetteer.link("“USA”") == "Q30"
    assert gazetteer.link("new york") == "Q1384"
    assert gazetteer.link("Atlantis") is None
    assert gazetteer.resolve("Atlantis") == "name:atlantis"
    assert gazetteer.resolve("New York") == "Q1384"
    assert gazetteer.resolve("anything", qid="Q5") == "Q5"


def test_find_mentions_longest_non_overlapping(gazetteer):
    text = "Is New York City bigger than New York State or York?"
    mentions = gazetteer.find_mentions(text)
    assert mentions == [
        Mention(3, 16, "Q60", "New York City"),
        Mention(29, 43, "Q1384", "New York State"),
        Mention(47, 51, "name:york", "York"),
    ]
    for m in mentions:
        assert text[m.start_char : m.end_char] == m.surface


def test_find_mentions_case_rules(gazetteer):
    # long names match in any case; short or all-caps aliases only with their own case
    assert [m.entity_id for m in gazetteer.find_mentions("who governs the UNITED STATES of america?")] == ["Q30"]
    assert gazetteer.find_mentions("Tell us about it") == []
    assert [m.surface for m in gazetteer.find_mentions("Tell the US about it")] == ["US"]
    assert [m.surface for m in gazetteer.find_mentions("Did USA win?")] == ["USA"]


def test_find_mentions_keeps_offsets_with_typographic_quotes():
    g = Gazetteer()
    g.add("name:ta'izz", ["Ta'izz"])
    text = "Where is “Ta’izz”?"
    (mention,) = g.find_mentions(text)
    assert mention.surface == "Ta’izz"
    assert text[mention.start_char : mention.end_char] == "Ta’izz"


def test_matcher_is_built_once_and_extended_after_add(gazetteer):
    assert gazetteer.find_mentions("NYC and Gotham") == [Mention(0, 3, "Q60", "NYC")]
    matcher = gazetteer._lower_matcher
    gazetteer.find_mentions("again")
    assert gazetteer._lower_matcher is matcher  # not rebuilt by a plain call
    gazetteer.add("name:gotham", ["Gotham"])
    assert [m.entity_id for m in gazetteer.find_mentions("NYC and Gotham")] == ["Q60", "name:gotham"]


def test_shared_names_prefer_primary_name():
    g = Gazetteer()
    g.add("Q1", ["Paris Hilton", "Paris"])  # alias
    g.add("Q90", ["Paris", "City of Light"])  # primary name
    g.add("Q2", ["Paris"])  # later primary: first primary keeps it
    assert g.link("Paris") == "Q90"
    assert g.candidates("paris") == ["Q1", "Q90", "Q2"]
    assert [m.entity_id for m in g.find_mentions("I love Paris.")] == ["Q90"]


def test_from_records_registers_aliases_and_ids():
    edit = EditRecord(
        id="e",
        subject="Hey Jude",
        relation="performer",
        object="Madonna",
        description="d",
        object_id="Q1744",
        object_aliases=("Madonna Louise Ciccone",),
        old_object="The Beatles",
    )
    fact = BaseFact(subject="The Beatles", relation="genre", object="rock music", object_aliases=("rock",))
    g = Gazetteer.from_records([edit], [fact])
    assert g.link("madonna louise ciccone") == "Q1744"
    assert g.link("Hey Jude") == "name:hey jude"
    assert g.link("the beatles") == "name:the beatles"
    assert g.link("Rock") == "name:rock music"
    assert "Q1744" in g and g.names("Q1744") == ["Madonna", "Madonna Louise Ciccone"]
    found = g.find_mentions("Who performed Hey Jude before Madonna Louise Ciccone?")
    assert [(m.entity_id, m.surface) for m in found] == [
        ("name:hey jude", "Hey Jude"),
        ("Q1744", "Madonna Louise Ciccone"),
    ]


def test_load_nlp_falls_back_to_blank_english():
    nlp = load_nlp(prefer_statistical=True)
    assert nlp.lang == "en"
    assert [t.text for t in nlp.make_doc("Hey Jude.")] == ["Hey", "Jude", "."]
    assert load_nlp(prefer_statistical=False).pipe_names == []


def test_unlinked_mentions_come_from_the_pipelines_entities():
    text = "Alice moved to New York City."
    blank = Gazetteer(nlp=load_nlp(prefer_statistical=False))
    blank.add("Q60", ["New York City"])
    # a blank pipeline finds no entities of its own
    assert blank.find_mentions(text, include_unlinked=True) == [Mention(15, 28, "Q60", "New York City")]

    nlp = load_nlp(prefer_statistical=False)
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns([{"label": "PERSON", "pattern": "Alice"}, {"label": "GPE", "pattern": "New York"}])
    g = Gazetteer(nlp=nlp)
    g.add("Q60", ["New York City"])
    # the linked, longer mention wins over the overlapping pipeline entity
    assert g.find_mentions(text, include_unlinked=True) == [
        Mention(0, 5, None, "Alice"),
        Mention(15, 28, "Q60", "New York City"),
    ]
    assert g.find_mentions(text) == [Mention(15, 28, "Q60", "New York City")]


def test_batched_pattern_tokenisation_matches_one_doc_per_name():
    names = ["U.S.", "Up (film)", "C++", "don't stop", "  spaced  out ", "🇵🇱 Polska", "a\nb", "Ta’izz", "x", "New-York"]
    g = Gazetteer()
    nlp = g.nlp
    expected = []
    for name in names:
        doc = nlp.make_doc(name.translate(str.maketrans({"’": "'"})))
        tokens = [t for t in doc if not t.is_space]
        expected.append((tuple(t.lower for t in tokens), tuple(t.orth for t in tokens)))
    assert g._pattern_keywords(names) == expected
