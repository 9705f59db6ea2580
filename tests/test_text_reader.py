"""The offline reader C2RAG, ReAgent and bm25-reader share (kgtool.reason.agents.offline.text_reader).

Invented documents (no dev data): names located from the graph's MENTIONS, spans typed by the
question, chain support, comparisons from each entity's passages, and the methods reading through it.
"""
from __future__ import annotations

import json

from kgtool.core.scope import Scope
from kgtool.core.types import PassageHit
from kgtool.reason.reading.form import answer_form
from kgtool.reason.agents.offline.text_reader import TextReader, locate
from kgtool.reason.graphview import GraphView
from kgtool.retrieve.passages import search_passages

CORPUS = {
    "Velmora Orchestra": ["The Velmora Orchestra is a symphony orchestra based in Quillhaven.",
                          " It was founded in 1911 by the conductor Anselm Drayke."],
    "Anselm Drayke": ["Anselm Drayke was a conductor born in Orsk Valley.",
                      " He led the Velmora Orchestra for thirty years and died in 1950."],
    "Quillhaven": ["Quillhaven is a port city on the Tarrow coast.", " It has a population of 84,000."],
    "Brisk Finch Ensemble": ["The Brisk Finch Ensemble is a chamber group founded in 1974 in Quillhaven."],
}


def _ingest(kg, tmp_path):
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(CORPUS), encoding="utf-8")
    kg.ingest_docs(path, format="hotpotqa", embed_relations=False)


# ----------------------------------------------------------------------------- no database


def test_locate_finds_whole_names_longest_first_and_keeps_case():
    text = "The Velmora Orchestra played in Velmora. A velmora is not one; an orchestra is a word."
    found = locate(text, [{"id": "e1", "name": "Velmora Orchestra", "aliases": []},
                          {"id": "e2", "name": "Velmora", "aliases": []},
                          {"id": "e3", "name": "orchestra", "aliases": []}])
    surfaces = [(text[s:e], eid) for s, e, eid, _ in found]
    # the longer name wins its span; the capitalised name is not matched in lower case; a
    # lower-case name (an ordinary word) is matched in any case, but never inside a longer name
    assert surfaces == [("Velmora Orchestra", "e1"), ("Velmora", "e2"), ("orchestra", "e3")]


def test_locate_matches_aliases_and_not_inside_words():
    text = "Drayke's pupils met in Quillhavens, then in Quillhaven."
    found = locate(text, [{"id": "q", "name": "Quillhaven", "aliases": []},
                          {"id": "a", "name": "Anselm Drayke", "aliases": ["Drayke"]}])
    assert [(text[s:e], eid) for s, e, eid, _ in found] == [("Drayke", "a"), ("Quillhaven", "q")]


def test_reader_without_graph_reads_spans_of_the_asked_shape():
    passages = [PassageHit("p1", "Anselm Drayke", "Anselm Drayke was a conductor born in Orsk Valley. "
                                                  "Drayke died in 1950 in Quillhaven.")]
    reader = TextReader(None, link_mentions=lambda text: [])
    when = reader.answer("When did Anselm Drayke die?", passages)
    where = reader.answer("Where was Anselm Drayke born?", passages)
    assert when == ("1950", "p1")
    assert where == ("Orsk Valley", "p1")


def test_chain_support_decides_between_spans_of_one_sentence():
    passages = [PassageHit("p1", "", "The prize went to Mara Quell and Odo Brent in Lisbon.")]
    reader = TextReader(None, link_mentions=lambda text: [])
    question = "Who won the prize?"
    plain = reader.answer(question, passages)
    backed = reader.answer(question, passages, chain=["Odo Brent"])
    assert plain[0] == "Mara Quell"  # the first name near the cue words, on its own
    assert backed[0] == "Odo Brent"  # the bound chain names the other one


def test_compare_answers_yes_no_and_choice_from_each_entity_text():
    reader = TextReader(None)
    q = "Are Velmora Orchestra and Brisk Finch Ensemble both based in Quillhaven?"
    form = answer_form(q)
    evidence = [("Velmora Orchestra", ["The Velmora Orchestra is a symphony orchestra based in Quillhaven."]),
                ("Brisk Finch Ensemble", ["The Brisk Finch Ensemble is a chamber group founded in 1974 in "
                                          "Quillhaven."])]
    assert form.kind == "yesno"
    assert reader.compare(q, form, evidence) == "no"  # one of them is only "founded in" it, not "based"
    q2 = "Which was founded first, Velmora Orchestra or Brisk Finch Ensemble?"
    evidence2 = [("Velmora Orchestra", ["It was founded in 1911 by the conductor Anselm Drayke."]),
                 ("Brisk Finch Ensemble", ["The Brisk Finch Ensemble is a chamber group founded in 1974."])]
    assert reader.compare(q2, answer_form(q2), evidence2) == "Velmora Orchestra"


# ----------------------------------------------------------------------------- real Neo4j


def test_reader_reads_mentions_from_the_graph_once_per_passage(kg, tmp_path):
    _ingest(kg, tmp_path)
    hits = search_passages(kg.db, None, "Velmora Orchestra founded conductor", Scope.parse(None), 5)
    assert hits, "the full-text pool finds the invented passages"
    view = GraphView(kg.db, kg.catalog, Scope.parse(None))
    entities = view.passage_entities([h.passage_id for h in hits])
    orchestra = next(h for h in hits if h.title == "Velmora Orchestra")
    names = {e["name"] for e in entities[orchestra.passage_id]}
    assert "Velmora Orchestra" in names  # the entity its document is about

    calls = []
    reader = TextReader(view, link_mentions=lambda text: calls.append(text) or [])
    question = "Which conductor founded the Velmora Orchestra?"
    spans = reader.spans(question, hits)
    assert spans[0].text == "Anselm Drayke"
    assert spans[0].entity_id  # the name came with its entity: located from the graph's mentions
    assert reader.answer(question, hits) == (spans[0].text, spans[0].passage_id)
    assert calls == []  # stored passages never go through the linker
    before = dict(reader._entities)
    reader.mentions(hits)
    assert reader._entities == before  # a second read of the same passages asks the graph nothing new


def test_methods_answer_text_questions_through_the_shared_reader(kg, tmp_path):
    _ingest(kg, tmp_path)
    for method in ("c2rag", "reagent"):
        # a count no graph fact holds (the mentions extractor links names, not numbers): read off the text
        ans = kg.answer("How many people live in Quillhaven?", method=method, agents="offline")
        assert ans.answer == "84,000", (method, ans.answer, ans.status)
    question = "In what year did Anselm Drayke die?"
    # the baseline reads the top BM25 passage alone: a year, whichever passage that is, never a name
    base = kg.answer(question, method="bm25-reader", agents="offline")
    assert base.answer in {"1911", "1950", "1974"}, base.answer
    # a compared question: each entity's passages, not one span
    both = kg.answer("Which was founded first, Velmora Orchestra or Brisk Finch Ensemble?", method="bm25-reader",
                     agents="offline")
    assert both.answer == "Velmora Orchestra", both.answer
