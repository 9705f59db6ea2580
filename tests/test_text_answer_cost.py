"""What a text answer embeds (issue 26): relation profiles from the vectors ingestion stored, passages
reranked by their words, and only the sentences the reader can take an answer from.

Invented documents (no dev data). Each test counts the strings the model is asked to embed, through an
embedder that wraps the real MiniLM one, and checks the vectors the agents end up with are the
model's own (within 1e-4).
"""
from __future__ import annotations

import json

import numpy as np

from kgtool.core.scope import Scope
from kgtool.core.types import PassageHit
from kgtool.models.embed import CachedEmbedder
from kgtool.reason.reading.form import AnswerForm
from kgtool.reason.agents.offline.c2rag_rerank import build_reranker
from kgtool.reason.agents.offline.c2rag_spans import rank_spans
from kgtool.reason.agents.offline.common import _Profiles, relation_key
from kgtool.reason.graphview import GraphView
from kgtool.reason.relmatch import RelationMatcher, phrase_core

CORPUS = {
    "Velmora Orchestra": ["The Velmora Orchestra is a symphony orchestra based in Quillhaven.",
                          " It was founded in 1911 by the conductor Anselm Drayke.",
                          " The Velmora Orchestra recorded with Brisk Finch Ensemble in Tarrow Hall."],
    "Anselm Drayke": ["Anselm Drayke was a conductor born in Orsk Valley.",
                      " He led the Velmora Orchestra for thirty years and died in Quillhaven."],
    "Quillhaven": ["Quillhaven is a port city on the Tarrow coast.", " It has a population of 84,000."],
    "Brisk Finch Ensemble": ["The Brisk Finch Ensemble is a chamber group founded in 1974 in Quillhaven."],
}


class Counting:
    """The real embedder, recording every string it is asked to embed."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.seen: list[str] = []

    @property
    def dim(self) -> int:
        return self.inner.dim

    def encode(self, texts):
        self.seen += list(texts)
        return self.inner.encode(texts)


def _ingest(kg, tmp_path):
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(CORPUS), encoding="utf-8")
    kg.ingest_docs(path, format="hotpotqa")  # relation labels embedded, as by default


def _model(kg):
    inner = kg.embedder.inner if isinstance(kg.embedder, CachedEmbedder) else kg.embedder
    return Counting(inner)


def test_profiles_of_a_neighbourhood_come_from_stored_vectors_not_one_call_each(kg, tmp_path):
    _ingest(kg, tmp_path)
    counting = _model(kg)
    matcher = RelationMatcher(counting)
    view = GraphView(kg.db, kg.catalog, Scope.parse(None))
    ids = [m[2] for m in view.link_mentions("Velmora Orchestra and Anselm Drayke")]
    assert ids, "the invented names are linked"
    pools = view.neighborhoods(ids, 50)
    facts = [f for pool in pools.values() for f in pool]
    assert len({relation_key(f) for f in facts}) >= 2, "the documents gave these entities several relations"

    profiles = _Profiles(view, matcher)
    profiles.prefetch(facts)
    labels = {phrase_core(f.relation) for f in facts}
    # the labels ingestion embedded are read back, not embedded again
    assert not labels & set(counting.seen), counting.seen
    calls = len(counting.seen)
    built = [profiles.of_fact(f) for f in facts]
    assert len(counting.seen) == calls  # every profile built from the cache: no call per relation

    fresh = kg.embedder.inner.encode([p.phrases[0] for p in built])
    got = np.stack([p.vectors[0] for p in built])
    assert np.abs(got - fresh).max() < 1e-4  # the stored vectors are the model's own


def test_prefetch_embeds_what_was_not_stored_in_one_call(kg, tmp_path):
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(CORPUS), encoding="utf-8")
    kg.ingest_docs(path, format="hotpotqa", embed_relations=False)  # nothing stored to read back
    counting = _model(kg)
    calls = []
    original = counting.encode
    counting.encode = lambda texts: calls.append(list(texts)) or original(texts)
    matcher = RelationMatcher(counting)
    view = GraphView(kg.db, kg.catalog, Scope.parse(None))
    ids = [m[2] for m in view.link_mentions("Velmora Orchestra and Anselm Drayke")]
    facts = [f for pool in view.neighborhoods(ids, 50).values() for f in pool]
    keys = {relation_key(f) for f in facts}
    assert len(keys) >= 2

    profiles = _Profiles(view, matcher)
    profiles.prefetch(facts)
    assert len(calls) == 1  # one model call for the whole neighbourhood
    built = [profiles.of_fact(f) for f in facts]
    assert len(calls) == 1  # and none while the profiles are built
    fresh = kg.embedder.inner.encode([p.phrases[0] for p in built])
    assert np.abs(np.stack([p.vectors[0] for p in built]) - fresh).max() < 1e-4


def test_recovery_reranker_scores_as_before_without_embedding_passages_that_say_the_variant(kg):
    from kgtool.reason.agents.offline.c2rag import OfflineReranker

    passages = [PassageHit("p1", "Quillhaven", "Quillhaven is a port city. It has a population of 84,000."),
                PassageHit("p2", "Anselm Drayke", "Anselm Drayke was a conductor born in Orsk Valley."),
                PassageHit("p3", "Tarrow", "The Tarrow coast is rocky and windswept.")]
    args = ("Where was Anselm Drayke born?", "(Anselm Drayke, place of birth, ?x1)", ["born in", "place of birth"],
            passages)
    before = OfflineReranker(kg).score(*args)  # every word of every passage embedded

    reranker = build_reranker(kg, "offline")
    seen = []
    original = reranker.matcher.encoder.encode
    reranker.matcher.encoder.encode = lambda texts: seen.extend(texts) or original(texts)
    try:
        reranker.matcher.encoder._cache.clear()
        scores = reranker.score(*args)
    finally:
        reranker.matcher.encoder.encode = original
    assert np.allclose(scores, before, atol=1e-6)  # the same scores
    words = {s.lower() for s in seen}
    assert "conductor" not in words and "valley" not in words  # "born" is the variant's word: not embedded
    assert "windswept" in words  # a passage without one is read with the model, as before


def test_reader_embeds_only_sentences_that_hold_an_answer_of_the_asked_shape(kg):
    seen: list[str] = []
    counting = _model(kg)
    counting.encode = lambda texts, inner=counting.inner: seen.extend(texts) or inner.encode(texts)
    matcher = RelationMatcher(counting)
    passages = [PassageHit("p1", "Anselm Drayke", "Anselm Drayke was a conductor admired by violinists. "
                                                  "He died in 1950 in a harbour town.")]
    spans = rank_spans(passages, asked=["date of death"], known=["Anselm Drayke"],
                       question="When did Anselm Drayke die?", matcher=matcher, form=AnswerForm("date"))
    assert spans and spans[0].text == "1950"
    words = {s.lower() for s in seen}
    assert "harbour" in words  # the sentence with a date was read with the model
    assert "violinists" not in words and "admired" not in words  # the one without a date was not


def test_a_sentence_holding_the_relations_own_word_is_not_embedded_and_scores_in_full(kg):
    seen: list[str] = []
    counting = _model(kg)
    counting.encode = lambda texts, inner=counting.inner: seen.extend(texts) or inner.encode(texts)
    matcher = RelationMatcher(counting)
    question = "When did Anselm Drayke die?"
    passages = [PassageHit("p1", "Anselm Drayke", "The death of Anselm Drayke came in 1950 in a harbour town. "
                                                  "A statue was raised in 1962 by violinists.")]
    spans = rank_spans(passages, asked=["date of death"], known=["Anselm Drayke"], question=question,
                       matcher=matcher, form=AnswerForm("date"))
    words = {s.lower() for s in seen}
    assert "harbour" not in words  # "death" is the relation's own word: the sentence says it, no model needed
    assert "violinists" in words  # the other sentence is read with the model
    assert [sp.text for sp in spans][:1] == ["1950"]
    # the same score the matcher gives the sentence when it embeds it
    full = matcher.expresses(matcher.analyse("The death of Anselm Drayke came in 1950 in a harbour town.",
                                             whole=False), matcher.profile("asked:date of death", ["date of death"]))
    assert full == 1.0


def test_a_run_joining_the_questions_own_name_to_another_is_not_one_answer():
    question = "Mara Quell starred in a series broadcast on which network?"
    hits = [PassageHit("p1", "Tide Lines", "Tide Lines is a series starring Mara Quell and Odo Brent. "
                                           "It was broadcast on Velmora Television.")]
    got = [sp.text for sp in rank_spans(hits, asked=[question], known=[], question=question)]
    assert "Mara Quell and Odo Brent" not in got  # the question's own name with another one
    assert "Odo Brent" in got  # the other name stays a candidate of its own
    # a pair the question does not name is still read as one answer ("Lakota and Dakota Sioux")
    other = [PassageHit("p2", "", "The state is named after the Velm and Orsk peoples of Tarrow.")]
    q2 = "Which peoples is the state named after?"
    assert any(" and " in sp.text for sp in rank_spans(other, asked=[q2], known=[], question=q2))


def test_prefetch_embeds_the_glosses_the_phrase_scorer_reads_in_the_same_call(kg):
    from kgtool.core.types import CandidateFact
    from kgtool.reason.lexicon import Lexicon
    from kgtool.reason.segmatch import PhraseScorer

    lexicon = Lexicon.load()
    assert lexicon is not None, "the WordNet lexicon the planner reads ships with the offline extra"
    calls: list[list[str]] = []
    counting = _model(kg)
    counting.encode = lambda texts, inner=counting.inner: calls.append(list(texts)) or inner.encode(texts)
    matcher = RelationMatcher(counting)
    facts = [CandidateFact(f"f{i}", "a", "A", label, "b", "B", "", relation_id=f"r{i}")
             for i, label in enumerate(["capital", "mother"])]
    profiles = _Profiles(None, matcher)
    profiles.prefetch(facts, lexicon)
    assert len(calls) == 1
    glosses = [g for label in ("capital", "mother") for g in lexicon.glosses(label, senses=2)]
    assert glosses and set(glosses) <= set(calls[0])  # the glosses joined the relations' call
    scorer = PhraseScorer(matcher, lexicon)
    for fact in facts:
        scorer._relation_gloss(profiles.of_fact(fact))
    assert not {g for c in calls[1:] for g in c} & set(glosses)  # read from the cache, not embedded again


def test_stored_relation_vectors_are_read_once_per_process(kg, tmp_path):
    _ingest(kg, tmp_path)
    view = GraphView(kg.db, kg.catalog, Scope.parse(None))
    ids = [m[2] for m in view.link_mentions("Velmora Orchestra and Anselm Drayke")]
    keys = sorted({relation_key(f) for pool in view.neighborhoods(ids, 50).values() for f in pool})
    reads = []
    original = kg.db.read
    kg.db.read = lambda name, **params: reads.append((name, params)) or original(name, **params)
    try:
        model = kg.embedder.name
        first = view.relation_vectors(keys, model)
        assert first and len(reads) == 1  # the labels ingestion embedded, in one read
        again = GraphView(kg.db, kg.catalog, Scope.parse(None))  # the next answer's view
        assert again.relation_vectors(keys, model) == {} and len(reads) == 1  # cached by then: no read
        assert again.relation_vectors([*keys, "no-such-relation"], model) == {}
        assert reads[-1][1]["keys"] == ["no-such-relation"]  # only the key never read
        kg.reset_caches()  # the graph changed: read again
        assert GraphView(kg.db, kg.catalog, Scope.parse(None)).relation_vectors(keys, model).keys() == first.keys()
    finally:
        kg.db.read = original
