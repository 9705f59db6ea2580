"""ReAgent's final answer on text (issue 26): read through the shared offline reader, on a real Neo4j.

Invented documents and facts (no dev data). A chain that rests on facts read off passages is read against
the passages (kgtool.reason.agents.offline.reagent_read), and escalates to a reading, not a challenge; a
chain of stated facts answers as it always did.
"""
from __future__ import annotations

import json

from kgtool.core.scope import Scope
from kgtool.reason.agents.offline.c2rag_rerank import build_reranker
from kgtool.reason.agents.offline.reagent_read import read_answer
from kgtool.reason.agents.offline.text_reader import TextReader
from kgtool.reason.context import HopState
from kgtool.reason.graphview import GraphView
from kgtool.reason.methods.reagent import _State
from kgtool.retrieve.passages import search_passages

CORPUS = {
    "Velmora Orchestra": ["The Velmora Orchestra is a symphony orchestra based in Quillhaven.",
                          " It was founded in 1911 by the conductor Anselm Drayke."],
    "Anselm Drayke": ["Anselm Drayke was a conductor born in Orsk Valley.",
                      " He led the Velmora Orchestra for thirty years and died in Quillhaven in 1950.",
                      " Drayke was married to the singer Ilse Marrow."],
    "Quillhaven": ["Quillhaven is a port city on the Tarrow coast.", " It has a population of 84,000."],
    "Ilse Marrow": ["Ilse Marrow was a soprano from Tarrow.", " She recorded the album Night Ferries in 1931."],
}


def _ingest(kg, tmp_path):
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(CORPUS), encoding="utf-8")
    kg.ingest_docs(path, format="hotpotqa", embed_relations=False)


def _messages(kg, run_id: str) -> list[tuple[str, str, str]]:
    rows = kg.query("MATCH (:Run {id: $run})-[:HAS_MESSAGE]->(m:Message) WHERE m.type <> 'assert' "
                    "RETURN m.sender AS sender, m.type AS type, m.content AS content ORDER BY m.t",
                    {"run": run_id})[1]
    return [(r["sender"], r["type"], r["content"]) for r in rows]


def test_a_chain_read_off_passages_escalates_to_the_reader_not_to_a_challenge(kg, tmp_path):
    _ingest(kg, tmp_path)
    result = kg.answer("Which album did the wife of Anselm Drayke record?", method="reagent", agents="offline")
    msgs = _messages(kg, result.run_id)
    # no hop reaches the album over the extracted facts: the controller has the passages read at once
    # (a challenge re-planned over links read off those same passages: half of a text answer's time)
    assert not [m for m in msgs if m[0] == "controller" and m[1] == "challenge"], msgs
    assert any(m[0] == "controller" and m[2].startswith("read the passages") for m in msgs), msgs
    assert result.answer == "Night Ferries" and result.status == "unverified"
    # the reading is on record as a passage step
    steps = kg.trace(result.run_id)["steps"]
    assert [s["answer"] for s in steps if s["kind"] == "passage"] == ["Night Ferries"], steps
    # one plan: nothing was rolled back to the start for a new decomposition
    rollbacks = kg.query("MATCH (:Run {id: $run})-[:HAS_ROLLBACK]->(rb:Rollback) RETURN count(rb) AS n",
                         {"run": result.run_id})[1]
    assert rollbacks[0]["n"] == 0


def test_the_reader_confirms_or_replaces_the_chains_binding(kg, tmp_path):
    _ingest(kg, tmp_path)
    reader = TextReader(GraphView(kg.db, kg.catalog, Scope()), kg.catalog.link_mentions, kg.matcher)
    reranker = build_reranker(kg, "offline")

    def retrieve(query, k):
        return search_passages(kg.db, None, query, Scope(), k)

    question = "Where was Anselm Drayke born?"
    kept = read_answer(reader, reranker, retrieve, question, kg.catalog.link_mentions, topic="Anselm Drayke",
                       binding="Orsk Valley")
    assert kept.answer == "Orsk Valley" and kept.confirms
    assert kept.passages and len(kept.passages) <= 3  # C2RAG's recovery: a pool of 8, the best 3 read
    # a binding of the asked shape that no passage puts forward for the question gives way to their best span
    replaced = read_answer(reader, reranker, retrieve, question, kg.catalog.link_mentions, topic="Anselm Drayke",
                           binding="Velmora Orchestra")
    assert replaced.answer == "Orsk Valley" and not replaced.confirms
    # a count: the binding must have the asked shape to be confirmed at all
    count = read_answer(reader, reranker, retrieve, "How many people live in Quillhaven?",
                        kg.catalog.link_mentions, topic="Quillhaven", binding="Tarrow")
    assert count.answer == "84,000" and not count.confirms
    # no passage at all (a graph of facts): nothing read
    assert read_answer(reader, reranker, lambda q, k: [], question, kg.catalog.link_mentions,
                       topic="Anselm Drayke", binding="Orsk Valley").answer is None


def _tsv(path, rows):
    path.write_text("".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_chain_of_stated_facts_keeps_its_answer_beside_passages(kg, tmp_path):
    """Stated facts (a fact file) answer as they always did, though a passage in the store says otherwise."""
    kg.ingest_facts(_tsv(tmp_path / "kg.tsv", [
        ("Golden Sky", "performer", "Nova Band", "Golden Sky was performed by Nova Band."),
        ("Nova Band", "country of citizenship", "Freedonia", "Nova Band is a citizen of Freedonia.")]))
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "d1", "title": "Golden Sky", "text": "Golden Sky is a song by Nova Band. "
                                "The song was a hit in Ruritania, where Nova Band lived."}) + "\n", encoding="utf-8")
    kg.ingest_docs(docs, embed_passages=False)
    result = kg.answer("What is the country of citizenship of the performer of Golden Sky?", method="reagent",
                       agents="offline")
    assert result.answer == "Freedonia" and result.status == "answered"
    assert all(s["kind"] != "passage" for s in kg.trace(result.run_id)["steps"])
    assert not [m for m in _messages(kg, result.run_id) if m[0] == "retriever" and "passages" in m[2]]


def test_a_revised_hop_keeps_where_its_fact_came_from(kg, tmp_path):
    """A hop revised after a rollback gets its fact back from the stored step (hop/next_candidate), and a
    judge reads the chain back (trace/chain): both keep whether a fact file states the fact, so a chain of
    facts read off passages is not taken for a stated one; a link ReAgent reads off a sentence is never stated."""
    from kgtool.reason.agents.offline.reagent_text import TextLinks
    from kgtool.reason.taxonomy import ReagentError
    from kgtool.reason.trace import TraceRecorder, candidate_row
    from kgtool.retrieve.hop import read_pool

    _ingest(kg, tmp_path)
    kg.ingest_facts(_tsv(tmp_path / "kg.tsv", [
        ("Anselm Drayke", "instrument", "Viola", "Anselm Drayke played the viola.")]))
    drayke = kg.catalog.link("Anselm Drayke")
    pool = read_pool(kg.db, None, drayke, Scope())
    read = next(f for f in pool if not f.stated)  # extracted from a passage
    stated = next(f for f in pool if f.stated)  # the fact file's
    with kg.db.session() as session:
        trace = TraceRecorder(kg.db, session, ReagentError)
        trace.start_run("q?", "test", "offline", Scope(), {}, {})
        rows = [TraceRecorder.step_row(hop=1, query="q1", gamma=1.5, entity_id=drayke, chosen=fact, answer="A",
                                       candidates=[candidate_row(fact, score=1.0)]) for fact in (read, stated)]
        steps = trace.record_steps(rows)
        again = [trace.next_candidate(s.step_id) for s in steps]
        assert [(f.fact_id, f.stated) for f in again] == [(read.fact_id, False), (stated.fact_id, True)]
        chain = trace.chain([s.step_id for s in steps])
        assert [r["stated"] for r in chain] == [False, True]
    state = _State()
    assert not state.all_stated([HopState("s1", 1, "q", drayke, "D", again[0], "t", "T")])
    assert state.all_stated([HopState("s2", 1, "q", drayke, "D", again[1], "t", "T")])
    assert not state.all_stated([])  # no chain rests on nothing
    links = TextLinks(GraphView(kg.db, kg.catalog, Scope())).of(drayke)
    assert links and not any(link.stated or state.stated(link) for link in links)
