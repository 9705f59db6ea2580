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
    # any other id the source gives identifies the entity too (homonyms with two ids stay two: issue 42)
    assert canonical_id("Poland", "not-a-qid") == "id:not-a-qid"
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


# --------------------------------------------------------------------------- the graph linker

from kgtool.ingest.graph_linker import GraphLinker, word_spans  # noqa: E402

NAMES = {
    "Q30": ["United States of America", "the United States", "USA", "US", "America"],
    "Q60": ["New York City", "NYC"],
    "Q1384": ["New York", "New York State"],
    "name:york": ["York"],
    "Q6532507": ["Let's Move!"],
    "Q312": ["Apple Inc.", "Apple"],
    "Q1": ["Paris Hilton", "Paris"],
    "Q90": ["Paris", "City of Light"],
    "name:ta'izz": ["Ta'izz"],
    "name:up (film)": ["Up (film)"],
}
TEXTS = [
    "Is New York City bigger than New York State or York?",
    "who governs the UNITED STATES of america?",
    "Tell us about it",
    "Tell the US about it",
    "Did USA win?",
    'Who founded "Let\u2019s Move!"?',
    "Who founded Let's Move?",
    "Who is the CEO of Apple Inc.?",
    "Apple's CEO and New York's mayor",
    "I love Paris.",
    "Where is \u201cTa\u2019izz\u201d?",
    "Who directed Up (film) and New-York?",
    "",
    "no names here at all",
]


def _write_entities(kg, names: dict[str, list[str]]) -> None:
    from kgtool.ingest.linking import normalize

    rows = [{"id": eid, "name": ns[0], "norm": normalize(ns[0]), "qid": None, "aliases": ns[1:],
             "alias_text": " | ".join(ns[1:])} for eid, ns in names.items()]
    kg.db.write("ingest/merge_entities", rows=rows)


def _gazetteer(names: dict[str, list[str]]) -> Gazetteer:
    g = Gazetteer()
    for eid, ns in names.items():
        g.add(eid, ns)
    return g


def test_word_spans_split_where_spacy_does():
    def words(text):
        return [text[a:b] for a, b in word_spans(text)]

    assert words("Who founded \u201cLet\u2019s Move!\u201d?") == ["Who", "founded", "\u201c", "Let", "\u2019s", "Move",
                                                              "!", "\u201d", "?"]
    assert words("Apple's CEO, (New-York) U.S. Inc.") == ["Apple", "'s", "CEO", ",", "(", "New", "-", "York", ")",
                                                         "U.S.", "Inc", "."]
    nlp = load_nlp(prefer_statistical=False)
    for text in ["Who performed Hey Jude?", "What is the capital of the country of Poland's president?",
                 'Who founded "Let\'s Move!"?', "Is (New-York) in the U.S.?"]:
        assert words(text) == [t.text for t in nlp.make_doc(text)]


def test_graph_linker_links_the_same_mentions_as_the_gazetteer(kg):
    _write_entities(kg, NAMES)
    gazetteer, linker = _gazetteer(NAMES), GraphLinker(kg.db)
    for text in TEXTS:
        assert linker.find_mentions(text) == gazetteer.find_mentions(text), text
    for name in [n for ns in NAMES.values() for n in ns] + ["new york", "Atlantis", "\u201cUSA\u201d", ""]:
        assert linker.link(name) == gazetteer.link(name), name
    # spot checks, so the comparison cannot pass with both sides wrong the same way
    assert [(m.surface, m.entity_id) for m in linker.find_mentions(TEXTS[0])] == [
        ("New York City", "Q60"), ("New York State", "Q1384"), ("York", "name:york")]
    assert [m.surface for m in linker.find_mentions(TEXTS[5])] == ["Let\u2019s Move!"]
    assert linker.find_mentions("Tell us about it") == []
    assert linker.link("Paris") == "Q90" and linker.candidates("paris") == ["Q1", "Q90"]
    assert linker.resolve("Atlantis") == "name:atlantis" and linker.resolve("x", qid="Q5") == "Q5"
    assert linker.entity_names(["Q60", "nope"]) == {"Q60": "New York City"}


def test_graph_linker_keys_only_what_changed(kg):
    _write_entities(kg, NAMES)
    assert GraphLinker(kg.db).sync() == len(NAMES)
    assert GraphLinker(kg.db).sync() == 0  # a new process finds the keys current: one read
    # a new entity changes the count: only it is keyed
    _write_entities(kg, {"Q64": ["Berlin"]})
    linker = GraphLinker(kg.db)
    assert linker.sync() == 1
    assert linker.link("berlin") == "Q64"
    # a new alias does not change the count: ingestion through the API drops the marker
    _write_entities(kg, {"Q64": ["Berlin", "Berlin, Germany"]})
    assert GraphLinker(kg.db).sync() == 0
    kg.reset_caches()
    linker = GraphLinker(kg.db)
    assert linker.sync() == 1
    assert [m.entity_id for m in linker.find_mentions("Is Berlin, Germany big?")] == ["Q64"]
    stored = kg.query("MATCH (:NameKey {key: 'berlin, germany'})-[r:NAMES]->(e:Entity) "
                      "RETURN e.id AS id, r.primary AS primary")[1]
    assert stored == [{"id": "Q64", "primary": False}]
    # dropping the marker when nothing changed keeps multi-word names linkable
    kg.reset_caches()
    assert GraphLinker(kg.db).sync() == 0
    assert [m.entity_id for m in GraphLinker(kg.db).find_mentions("Is New York City big?")] == ["Q60"]


def test_graph_linker_agrees_with_the_gazetteer_on_mquake_dev(kg, mquake_dev):
    import json

    from kgtool.reason.graphview import GraphCatalog

    kg.ingest_edits(mquake_dev, embed_relations=False)
    graph, memory = GraphCatalog(kg.db, "graph"), GraphCatalog(kg.db, "gazetteer")
    cases = json.loads(mquake_dev.read_text())
    texts = [q for c in cases for q in c["questions"]] + [r["question"] for c in cases for r in c["requested_rewrite"]]
    # a name several entities have only as an alias (e.g. "it") goes to the first in storage
    # order in memory, to the first in id order in the graph; everything else is the same
    linked = shared_mentions = 0
    for text in texts:
        found, expected = graph.link_mentions(text), memory.link_mentions(text)
        assert [m[:2] + m[3:] for m in found] == [m[:2] + m[3:] for m in expected], text  # spans, surfaces
        for (_s, _e, entity_id, surface), want in zip(found, expected):
            if len(memory.gazetteer.candidates(surface)) > 1:
                shared_mentions += 1
                assert entity_id in memory.gazetteer.candidates(surface)
            else:
                assert entity_id == want[2], text
        linked += bool(found)
    assert linked == len(texts)  # every question names its subject
    assert shared_mentions < len(texts) // 20
    rows = kg.db.read("graph/entity_names")
    names = [r["name"] for r in rows] + [a for r in rows for a in r["aliases"]]
    shared = {n for n in names if len(memory.gazetteer.candidates(n)) > 1}
    assert all(graph.link(n) == memory.link(n) for n in names if n not in shared)
    assert all(graph.link(n) in memory.gazetteer.candidates(n) for n in shared)


COMMON_WORDS = {
    # what a document corpus makes of headings and sentence openings, beside real names
    "name:city": ["City"],
    "name:who": ["Who"],
    "name:that": ["That"],
    "name:the who": ["The Who"],
    "name:leeds": ["Leeds"],
    "name:piano": ["piano"],
    "name:it": ["It (novel)", "It"],
}


def test_linkers_leave_common_words_of_a_question_unlinked(kg):
    """A question's function word at a sentence opening ("Who"), and a word it writes in lower case where
    every stored name is capitalised ("city" against "City"), are no mentions; a name the graph stores in
    lower case ("piano"), a capitalised name mid-sentence ("It") and a multi-word name ("The Who") are."""
    _write_entities(kg, COMMON_WORDS)
    gazetteer, linker = _gazetteer(COMMON_WORDS), GraphLinker(kg.db)
    cases = {
        "Who was the drummer of The Who, born in the city of Leeds?": [("The Who", "name:the who"),
                                                                     ("Leeds", "name:leeds")],
        "Which city is it that Leeds faces? Who plays the piano there?": [("Leeds", "name:leeds"),
                                                                         ("piano", "name:piano")],
        "Did Stephen King write It before Leeds?": [("It", "name:it"), ("Leeds", "name:leeds")],
        # typed in lower case: the case says nothing about names, yet "who" is still a function word
        "who lives in the city": [("city", "name:city")],
    }
    for text, expected in cases.items():
        assert [(m.surface, m.entity_id) for m in linker.find_mentions(text)] == expected, text
        assert linker.find_mentions(text) == gazetteer.find_mentions(text), text
    # linking a name as such is unchanged: only free text is read for what it writes as names
    assert linker.link("Who") == "name:who" and linker.link("city") == "name:city"


# ---------------------------------------------------------------- accents and names inside longer names

ACCENTED = {"name:tekez\u00e9 river": ["Tekez\u00e9 River"],
            # two entities whose names differ only by accents: neither swallows the other
            "name:jos\u00e9 mar\u00eda": ["Jos\u00e9 Mar\u00eda"], "name:jose maria": ["Jose Maria"],
            "name:\u00e1ngel p\u00e9rez": ["\u00c1ngel P\u00e9rez"], "name:angel p\u00e9rez": ["Angel P\u00e9rez"]}
ACCENT_TEXT = "Does the Tekeze River meet Jose Maria, Jos\u00e9 Mar\u00eda or Angel Perez?"


def test_gazetteer_falls_back_to_the_accent_folded_name():
    g = _gazetteer(ACCENTED)
    assert g.link("Tekeze River") == g.link("tekez\u00e9 river") == "name:tekez\u00e9 river"
    assert g.link("Jose Maria") == "name:jose maria" and g.link("Jos\u00e9 Mar\u00eda") == "name:jos\u00e9 mar\u00eda"
    assert g.link("Angel Perez") is None  # folds to the names of two entities: not said which
    assert [(m.surface, m.entity_id) for m in g.find_mentions(ACCENT_TEXT)] == [
        ("Tekeze River", "name:tekez\u00e9 river"), ("Jose Maria", "name:jose maria"),
        ("Jos\u00e9 Mar\u00eda", "name:jos\u00e9 mar\u00eda")]
    assert canonical_id("Tekeze River") == "name:tekeze river"  # ids stay the exact normalised names


def test_graph_linker_falls_back_to_the_accent_folded_name(kg):
    _write_entities(kg, ACCENTED)
    linker = GraphLinker(kg.db)
    assert [(m.surface, m.entity_id) for m in linker.find_mentions(ACCENT_TEXT)] == [
        ("Tekeze River", "name:tekez\u00e9 river"), ("Jose Maria", "name:jose maria"),
        ("Jos\u00e9 Mar\u00eda", "name:jos\u00e9 mar\u00eda")]
    assert linker.link("tekeze river") == "name:tekez\u00e9 river" and linker.link("Angel Perez") is None
    # the reverse: text with accents, a name stored without them
    _write_entities(kg, {"name:addis ababa": ["Addis Ababa"]})
    kg.reset_caches()
    assert [m.entity_id for m in GraphLinker(kg.db).find_mentions("Is \u00c0ddis Ab\u00e4ba far?")] == ["name:addis ababa"]
    # a store keyed before folded keys existed is rekeyed where names have accents, once
    with kg.db.session() as session:
        session.run("MATCH (n:NameKey) WHERE n.key IN ['tekeze river', 'jose maria', 'angel perez'] "
                    "DETACH DELETE n").consume()
        session.run("MATCH (m:LinkIndex) REMOVE m.keys_version").consume()
    assert GraphLinker(kg.db).sync() == 4  # the accented names, not the others
    assert GraphLinker(kg.db).sync() == 0
    assert GraphLinker(kg.db).link("Tekeze River") == "name:tekez\u00e9 river"


def test_passage_mentions_link_names_inside_longer_runs_and_surnames():
    from kgtool.ingest.doc_extract import MentionExtractor

    g = _gazetteer({"name:mira castellane": ["Mira Castellane"], "name:copenhagen": ["Copenhagen"],
                    "name:tekez\u00e9 river": ["Tekez\u00e9 River"]})
    text = ("Lantern Songs is an album produced by Mira Castellane of Glass Harbour Choir. Castellane recorded "
            "it at the University of Copenhagen, near the Tekeze River.")
    found = [(text[m.start:m.end], m.entity_id) for m in MentionExtractor(gazetteer=g).mentions("Lantern Songs", text)]
    assert ("Mira Castellane", "name:mira castellane") in found
    assert ("Glass Harbour Choir", "name:glass harbour choir") in found
    assert ("Castellane", "name:mira castellane") in found  # the surname of the full name above
    # a one-word known name inside a longer name stays part of it
    assert ("University of Copenhagen", "name:university of copenhagen") in found
    assert ("Tekeze River", "name:tekez\u00e9 river") in found
    assert not any("castellane of" in e or e == "name:castellane" for _s, e in found)


def test_ingested_passage_mentions_the_entity_another_page_is_about(kg, tmp_path):
    import json

    docs = [{"id": "d1", "title": "Lantern Songs",
             "text": "Lantern Songs is an album produced by Mira Castellane of Glass Harbour Choir. "
                     "Castellane recorded it near the Tekeze River."},
            {"id": "d2", "title": "Mira Castellane", "text": "Mira Castellane is a singer."},
            {"id": "d3", "title": "Tekez\u00e9 River", "text": "The Tekez\u00e9 River is a river."}]
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    kg.ingest_docs(path, format="jsonl")
    rows = kg.query("MATCH (p:Passage {document_id: 'd1'})-[:MENTIONS]->(e:Entity) RETURN e.id AS id")[1]
    ids = {r["id"] for r in rows}
    assert {"name:mira castellane", "name:tekez\u00e9 river", "name:glass harbour choir"} <= ids
    assert not {"name:castellane", "name:mira castellane of glass harbour choir", "name:tekeze river"} & ids
    # the question side: typed without the accent, linked to the page's entity
    assert [m.entity_id for m in GraphLinker(kg.db).find_mentions("Where does the Tekeze River flow?")] == \
        ["name:tekez\u00e9 river"]
