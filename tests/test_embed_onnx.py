"""MiniLM through onnxruntime (the onnx extra): the numpy encoder's vectors, a graph built once and cached."""
from __future__ import annotations

import numpy as np
import pytest

from kgtool.errors import ConfigError
from kgtool.models.embed import MiniLMEmbedder
from kgtool.models.minilm import NumpyBertEncoder
from kgtool.models.minilm_onnx import OnnxBertEncoder

TEXTS = ["Hank Snow: Clarence Snow was a Canadian-American country music artist. He moved to Nashville in 1949.",
         "Who is the spouse of the mayor?", "a", "", "  padded   text  ", "Publix " * 300]  # 300 words: truncated


def test_onnx_vectors_equal_the_numpy_ones_and_the_graph_is_cached(tmp_path):
    path = MiniLMEmbedder().path_or_name
    reference = NumpyBertEncoder(path, batch_size=4).encode(TEXTS)
    encoder = OnnxBertEncoder(path, cache_dir=tmp_path, batch_size=4, threads=1)
    vectors = encoder.encode(TEXTS)
    assert vectors.shape == reference.shape == (len(TEXTS), 384)
    assert np.abs(vectors - reference).max() < 1e-4
    built = list(tmp_path.glob("bert-*.onnx"))
    assert built == [encoder.model_path()]
    stamp = built[0].stat().st_mtime_ns
    again = OnnxBertEncoder(path, cache_dir=tmp_path, batch_size=4, threads=1)
    assert np.abs(again.encode(TEXTS[:2]) - reference[:2]).max() < 1e-4
    assert built[0].stat().st_mtime_ns == stamp  # read from the cache, not built again


def test_minilm_backend_choice(tmp_path, monkeypatch):
    monkeypatch.setenv("KGTOOL_CACHE_DIR", str(tmp_path))  # the shared cache, not the home
    auto = MiniLMEmbedder()
    assert not auto._uses_onnx(1) and auto._uses_onnx(auto.onnx_min_batch)
    few, many = auto.encode(TEXTS[:2]), auto.encode(TEXTS * 6)
    assert np.abs(many[:2] - few).max() < 1e-4
    assert list((tmp_path / "models").glob("bert-*.onnx"))  # the big batch went through onnxruntime
    assert auto._uses_onnx(1)  # once a session is built, a single text takes it too
    assert set(auto._onnx._sessions) == {1}  # an answer's phrases: one thread; no all-core session built
    assert np.abs(auto.encode(TEXTS[:2]) - few).max() < 1e-4
    assert not MiniLMEmbedder(backend="numpy")._uses_onnx(10_000)
    with pytest.raises(ConfigError, match="MiniLM backend"):
        MiniLMEmbedder(backend="gpu")


def test_batches_group_texts_of_similar_length_and_the_vectors_do_not_depend_on_them(tmp_path):
    from kgtool.models import minilm

    lengths = [3, 30, 3, 4, 28, 3, 5, 3]
    chunks = minilm._chunks(lengths, batch_size=64)
    assert sorted(i for c in chunks for i in c) == list(range(len(lengths)))
    assert [sorted(lengths[i] for i in c) for c in chunks] == [[3, 3, 3, 3, 4, 5], [28, 30]]
    assert all(len(c) <= 2 for c in minilm._chunks(lengths, batch_size=2))
    # one word beside a long question: padded together they would cost the question's width each
    texts = ["father", "Indian film photographer known for taking images of various celebrities, is father to "
                       "which Bollywood actress?", "male parent", "sire", "movie", "moving picture"]
    path = MiniLMEmbedder().path_or_name
    encoder = OnnxBertEncoder(path, cache_dir=tmp_path, threads=1)
    together = encoder.encode(texts)
    alone = np.stack([encoder.encode([t])[0] for t in texts])
    assert np.abs(together - alone).max() < 1e-5
    numpy_encoder = NumpyBertEncoder(path)
    assert np.abs(numpy_encoder.encode(texts) - together).max() < 1e-4
