"""Passage retrieval: full-text candidates in Cypher, ranked by named scorers, scoped like facts."""
from __future__ import annotations

from pathlib import Path

from kgtool.core.scope import Scope
from kgtool.reason.trace import candidate_row
from kgtool.retrieve.passages import PassageRetriever, lucene_query

SAMPLE = Path(__file__).resolve().parent.parent / "ingest" / "sample"


def test_lucene_query_keeps_only_words():
    assert lucene_query('Who (AND) is "X"~ married: to? OR*') == "x married"
    assert lucene_query("?? !!") == ""


def test_edit_passages_are_retrieved_ranked_and_scoped(kg):
    kg.ingest_edits(SAMPLE / "edits.jsonl")
    retriever = PassageRetriever(kg.db)
    with kg.db.session() as session:
        hits = retriever.retrieve(session, "Who is Jacinda Ardern married to?", Scope(), 3)
        assert hits and hits[0].text == "Jacinda Ardern is married to Keanu Reeves."
        assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
        assert hits[0].score >= hits[-1].score and {"fulltext", "bm25"} <= set(hits[0].scores)
        row = candidate_row(hits[0])
        assert row["kind"] == "passage" and row["id"] == hits[0].passage_id
        # a passage describing an out-of-scope edit is not retrieved
        case = kg.query("MATCH (e:Edit)-[:ASSERTS]->(:Fact)<-[:SUPPORTS]-(p:Passage {id: $p}) RETURN e.case_id AS c",
                        {"p": hits[0].passage_id})[1][0]["c"]
        other = retriever.retrieve(session, "Who is Jacinda Ardern married to?", Scope(cases=("no-such-case",)), 3)
        assert hits[0].passage_id not in {h.passage_id for h in other}
        same = retriever.retrieve(session, "Who is Jacinda Ardern married to?", Scope(cases=(case,)), 3)
        assert same[0].passage_id == hits[0].passage_id
        assert retriever.retrieve(session, "?? !!", Scope(), 3) == []
