"""Document collections: the five formats, ingestion into a real Neo4j, idempotence, linking, strict mode."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgtool.core.scope import Scope
from kgtool.errors import ConfigError, IngestInterrupted, InputError
from kgtool.ingest.docs import chunk, read_documents
from kgtool.retrieve.passages import search_passages

SAMPLE = Path(__file__).resolve().parent.parent / "ingest" / "sample"

# A small HotpotQA-format corpus: one passage names an entity an edit also names
# (Madonna), and one passage's title is mentioned by another (Hank Snow).
CORPUS = {
    "Hank Snow": [
        'Clarence Eugene "Hank" Snow was a Canadian-American country music artist.',
        " He moved to Nashville, Tennessee in 1949 and later toured with Madonna.",
    ],
    "Hello Love (song)": [
        '"Hello Love" is a 1974 single by Hank Snow.',
        " It was his last number one hit on the country chart.",
    ],
    # names a number and several people: a re-ingest must read the same triples from it
    "Arthur? Arthur!": ["Arthur? Arthur! is a 1969 British comedy film directed by Samuel Gallu and starring "
                        "Shelley Winters."],
    "Nashville, Tennessee": [
        "Nashville is the capital of the U.S. state of Tennessee.",
        " It is located on the Cumberland River.",
    ],
}


def counts(kg) -> dict:
    stats = kg.stats()
    return {**stats["nodes"], **stats["relationships"]}


def write(path: Path, data) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- readers (no database)


def test_hotpotqa_corpus_keeps_sentence_starts(tmp_path):
    result = read_documents(write(tmp_path / "c.json", CORPUS), "hotpotqa")
    assert [d.title for d in result.documents] == list(CORPUS)
    passage = result.documents[0].passages[0]
    assert passage.id == "c:Hank Snow#0" and passage.document_id == "c:Hank Snow"
    assert len(passage.sentences) == 2
    assert passage.text[passage.sentences[1]:].startswith("He moved to Nashville")
    assert not result.bad


def test_musique_and_2wiki_lists_group_paragraphs_by_title(tmp_path):
    paragraphs = [{"title": "Publix", "text": "Publix is a grocery chain. It has 35 stores in Tennessee."},
                  {"title": "Publix", "text": "Publix was founded in 1930."},
                  {"title": "Publix", "text": "Publix was founded in 1930."},  # a repeat is one passage
                  {"title": "", "text": "no title"}]
    for fmt in ("musique", "2wiki"):
        result = read_documents(write(tmp_path / f"{fmt}.json", paragraphs), fmt)
        assert len(result.documents) == 1
        doc = result.documents[0]
        assert [p.position for p in doc.passages] == [0, 1]
        assert doc.passages[0].sentences == (0, 27)
        assert len(result.bad) == 1 and f"{fmt}.json:record 4" in str(result.bad[0])
        assert "title" in result.bad[0].reason


def test_musique_question_file_reads_its_paragraphs(tmp_path):
    question = {"id": "q1", "question": "?", "paragraphs": [
        {"idx": 0, "title": "A", "paragraph_text": "A is in B.", "is_supporting": True},
        {"idx": 1, "title": "B", "paragraph_text": "B is in C.", "is_supporting": False}]}
    result = read_documents(write(tmp_path / "q.json", [question]), "musique")
    assert [(d.title, d.passages[0].text) for d in result.documents] == [("A", "A is in B."), ("B", "B is in C.")]


def test_jsonl_reports_bad_lines_and_cuts_long_texts(tmp_path):
    long_text = " ".join(f"Sentence number {i} talks about Paris." for i in range(200))
    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join([
        json.dumps({"id": "d1", "title": "Paris", "text": long_text}),
        "{not json",
        json.dumps({"title": "no id", "text": "x"}),
        json.dumps({"id": "d1", "text": "again"}),
        json.dumps({"id": 7, "text": "A number id is fine."}),
    ]) + "\n", encoding="utf-8")
    result = read_documents(path, max_passage_chars=500)
    assert result.format == "jsonl"
    assert [d.id for d in result.documents] == ["d1", "7"]
    pieces = result.documents[0].passages
    assert len(pieces) > 1 and all(len(p.text) <= 500 for p in pieces)
    assert " ".join(p.text for p in pieces) == long_text
    assert [b.source for b in result.bad] == [f"{path}:2", f"{path}:3", f"{path}:4"]
    assert "not valid JSON" in result.bad[0].reason and '"id"' in result.bad[1].reason
    assert "duplicate id 'd1' (first at line 1)" in result.bad[2].reason


def test_text_directory_one_document_per_file(tmp_path):
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "Hank_Snow.txt").write_text("Hank Snow was a singer.\n\nHe moved to Nashville.\n", encoding="utf-8")
    (folder / "sub" / "Tennessee.txt").write_text("Tennessee is a state.", encoding="utf-8")
    (folder / "empty.txt").write_text("\n\n", encoding="utf-8")
    result = read_documents(folder)
    assert {d.id: (d.title, len(d.passages)) for d in result.documents} == {
        "notes:Hank_Snow": ("Hank Snow", 2), "notes:sub/Tennessee": ("Tennessee", 1)}
    assert len(result.bad) == 1 and "empty" in result.bad[0].reason


def test_format_errors_say_what_to_pass(tmp_path):
    corpus = write(tmp_path / "c.json", CORPUS)
    with pytest.raises(ConfigError, match="--format"):
        read_documents(corpus)
    with pytest.raises(ConfigError, match="unknown document format"):
        read_documents(corpus, "pdf")
    with pytest.raises(InputError, match="--format hotpotqa"):
        read_documents(corpus, "musique")
    with pytest.raises(InputError, match="no such file"):
        read_documents(tmp_path / "missing.json", "hotpotqa")


def test_chunk_never_splits_a_sentence():
    text = "One two three. Four five six seven. Eight."
    pieces = chunk(text, 20)
    assert [p[0] for p in pieces] == ["One two three.", "Four five six seven.", "Eight."]
    assert all(starts[0] == 0 for _, starts in pieces)


# ----------------------------------------------------------------------------- ingestion (real Neo4j)


def test_ingest_links_entities_supports_facts_and_is_idempotent(kg, tmp_path):
    kg.ingest_edits(SAMPLE / "edits.jsonl", embed_relations=False)
    corpus = write(tmp_path / "corpus.json", CORPUS)
    seen = []
    summary = kg.ingest_docs(corpus, format="hotpotqa", embed_relations=False,
                             progress=lambda done, total: seen.append((done, total)))
    n = len(CORPUS)
    assert (summary.documents, summary.passages) == (n, n) and summary.ok
    assert summary.facts > 0 and summary.entities > 0 and summary.facts_per_passage == summary.facts / n
    assert seen[-1] == (n, n)
    before = counts(kg)
    assert before["Document"] == n and before["Passage"] >= n and before["HAS_PASSAGE"] == n

    # the edit's Madonna and the document's Madonna are one Entity, mentioned by the passage
    _, rows = kg.query("MATCH (e:Entity) WHERE e.name = 'Madonna' "
                       "RETURN e.id AS id, COUNT { (e)<-[:MENTIONS]-(:Passage) } AS mentioned, "
                       "COUNT { (e)<-[:OBJECT]-(:Fact)<-[:ASSERTS]-(:Edit) } AS edited")
    assert len(rows) == 1 and rows[0]["mentioned"] == 1 and rows[0]["edited"] >= 1
    # a triple read from the passage, supported by it, from the passage's topic to another document's
    _, facts = kg.query("MATCH (p:Passage {id: 'corpus:Hank Snow#0'})-[:SUPPORTS]->(f:Fact)-[:OBJECT]->(t:Entity) "
                        "MATCH (h:Entity)-[:SUBJECT_OF]->(f) RETURN h.name AS head, f.relation AS rel, t.name AS tail, "
                        "f.source AS source")
    assert {"head": "Hank Snow", "rel": "moved to", "tail": "Nashville, Tennessee", "source": str(corpus.resolve())} in facts
    # the song's document is about one entity and a passage of another document mentions its title
    _, about = kg.query("MATCH (d:Document {id: 'corpus:Hello Love (song)'})-[:ABOUT]->(e:Entity) "
                        "RETURN e.name AS name, e.aliases AS aliases")
    assert about == [{"name": "Hello Love (song)", "aliases": ["Hello Love"]}]
    _, stored = kg.query("MATCH (p:Passage {id: 'corpus:Hank Snow#0'}) RETURN p.text AS text, p.sentences AS s")
    assert stored[0]["text"][stored[0]["s"][1]:].startswith("He moved")

    arthur = ("MATCH (:Passage {id: 'corpus:Arthur? Arthur!#0'})-[:SUPPORTS]->(f:Fact) "
              "RETURN f.id AS id ORDER BY id")
    supported = kg.query(arthur)[1]
    assert supported
    again = kg.ingest_docs(corpus, format="hotpotqa", embed_relations=False)
    assert kg.query(arthur)[1] == supported
    assert (again.documents, again.passages, again.facts) == (summary.documents, summary.passages, summary.facts)
    assert counts(kg) == before

    # facts read from documents are in force within an edit scope too, like base knowledge
    from kgtool.retrieve.hop import read_pools

    hank = kg.query("MATCH (e:Entity {name: 'Hank Snow'}) RETURN e.id AS id")[1][0]["id"]
    for scope in (Scope(), Scope(cases=("some-case",)), Scope(batches=("edits",))):
        pools, _ = read_pools(kg.db, None, [hank], scope)
        assert ("moved to", "Nashville, Tennessee") in {(f.relation, f.tail) for f in pools[hank]}, scope

    # the passage full-text index serves retrieval as soon as ingestion returns
    hits = search_passages(kg.db, None, "Which river is Nashville on?", Scope())
    assert hits and hits[0].passage_id == "corpus:Nashville, Tennessee#0"


def test_a_connection_lost_mid_ingest_says_what_is_in_and_a_rerun_completes(kg, neo4j_settings, tmp_path):
    from kgtool.api import KnowledgeGraph

    corpus = write(tmp_path / "corpus.json", CORPUS)
    doomed = KnowledgeGraph.connect(neo4j_settings)
    with pytest.raises(IngestInterrupted) as err:
        # the connection goes away once the first batch is committed
        doomed.ingest_docs(corpus, format="hotpotqa", batch_size=1, embed_relations=False, embed_passages=False,
                           progress=lambda done, total: doomed.close())
    message = str(err.value)
    assert f"ingesting {corpus} stopped" in message and "1 of 4 batch(es) (1 of 4 passages)" in message
    assert err.value.records_committed == 1 and counts(kg)["Passage"] == 1
    kg.ingest_docs(corpus, format="hotpotqa", batch_size=1, embed_relations=False, embed_passages=False)
    assert counts(kg)["Passage"] == len(CORPUS)


def test_strict_writes_nothing_when_a_record_is_bad(kg, tmp_path):
    corpus = write(tmp_path / "bad.json", [{"title": "A", "text": "A is in B."}, {"title": "B", "text": 3}])
    before = counts(kg)
    with pytest.raises(InputError, match=r"1 bad record.*nothing was written"):
        kg.ingest_docs(corpus, format="musique", strict=True, embed_relations=False)
    assert counts(kg) == before
    loose = kg.ingest_docs(corpus, format="musique", embed_relations=False)
    assert loose.documents == 1 and len(loose.skipped) == 1 and "bad.json:record 2" in str(loose.skipped[0])


def test_anchor_extractor_is_refused_for_documents(kg, tmp_path):
    corpus = write(tmp_path / "c.json", CORPUS)
    with pytest.raises(ConfigError, match="mentions"):
        kg.ingest_docs(corpus, format="hotpotqa", extractor="anchor", embed_relations=False)
