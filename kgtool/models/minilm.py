"""A BERT sentence encoder (all-MiniLM-L6-v2 and its kin) run in numpy.

Why not torch: answering encodes a few dozen short phrases, and importing
torch alone takes longer than the whole answer (1.4-5 s on the 2-core bench
machine, against ~0.05 s for `tokenizers` and `safetensors`). The forward pass
of a 6-layer, 384-wide encoder over short phrases is a handful of matrix
products, which numpy does as fast as torch on a CPU. The result is the
sentence-transformers pipeline of the model directory (Transformer, mean
Pooling, Normalize), to within float32 rounding (tests/test_embed.py checks it
against sentence-transformers itself).
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Sequence

import numpy as np

from kgtool.errors import ConfigError, require

# erf by Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7): BERT's GELU is the
# exact erf form, and numpy has no erf; the error is far below float32 noise here.
_P = 0.3275911
_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def _erf(x: np.ndarray) -> np.ndarray:
    sign = np.sign(x)
    ax = np.abs(x)
    t = 1.0 / (1.0 + _P * ax)
    poly = t * (_A[0] + t * (_A[1] + t * (_A[2] + t * (_A[3] + t * _A[4]))))
    return sign * (1.0 - poly * np.exp(-ax * ax))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * (1.0 / math.sqrt(2.0))))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class NumpyBertEncoder:
    """Mean-pooled, L2-normalised sentence vectors from a sentence-transformers BERT directory.

    Reads config.json (architecture), sentence_bert_config.json (max_seq_length),
    tokenizer.json (the fast tokenizer) and model.safetensors. Only BERT
    encoders with mean pooling are supported; anything else is refused with a
    message naming the sentence-transformers embedder instead.
    """

    def __init__(self, directory: str | Path, *, batch_size: int = 64):
        self.directory = Path(directory)
        self.batch_size = max(1, int(batch_size))
        config = _json(self.directory / "config.json")
        if config.get("model_type") != "bert" or config.get("hidden_act", "gelu") != "gelu":
            raise ConfigError(f"{self.directory} is not a BERT encoder with GELU; use the sentence-transformers "
                              "embedder (a model directory as the embedder setting) for it")
        pooling = _json(self.directory / "1_Pooling" / "config.json", {"pooling_mode_mean_tokens": True})
        # sentence-transformers 2.x/3.x write pooling_mode_mean_tokens, 4.x+ pooling_mode
        mean = pooling.get("pooling_mode") == "mean" or (
            pooling.get("pooling_mode_mean_tokens") and not pooling.get("pooling_mode_cls_token"))
        if not mean:
            raise ConfigError(f"{self.directory} does not use mean pooling; use the sentence-transformers embedder")
        st_config = _json(self.directory / "sentence_bert_config.json", {})
        tokenizer_config = _json(self.directory / "tokenizer_config.json", {})
        limit = st_config.get("max_seq_length") or tokenizer_config.get("model_max_length") or 512
        self.max_length = min(int(limit), int(config["max_position_embeddings"]))
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.dim = int(config["hidden_size"])

        _single_threaded_blas()
        tokenizers = require("tokenizers", "offline", "the packaged MiniLM embedder")
        safetensors_numpy = require("safetensors.numpy", "offline", "the packaged MiniLM embedder")
        tokenizer = tokenizers.Tokenizer.from_file(str(self.directory / "tokenizer.json"))
        tokenizer.enable_truncation(self.max_length)
        tokenizer.no_padding()  # padded per batch below, to the batch's longest text
        self.tokenizer = tokenizer
        self.pad_id = int(config.get("pad_token_id", 0))
        self._safetensors = safetensors_numpy
        self._weights: dict[str, np.ndarray] | None = None

    @property
    def _w(self) -> dict[str, np.ndarray]:
        """The weights, read on first use: an encoder whose forward pass runs elsewhere (onnxruntime,
        from a graph file built earlier) never needs them, and reading them took ~0.4 s."""
        if self._weights is None:
            weights = self._safetensors.load_file(str(self.directory / "model.safetensors"))
            prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
            w = {k[len(prefix):]: np.ascontiguousarray(v, dtype=np.float32)
                 for k, v in weights.items() if k.startswith(prefix) and v.dtype != np.int64}
            # y = x @ W.T + b: transpose once, not on every call
            for name in list(w):
                if name.endswith(".weight") and name.startswith("encoder.") and w[name].ndim == 2:
                    w[name] = np.ascontiguousarray(w[name].T)
            self._weights = w
        return self._weights

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length float32 row per text."""
        return self._encode(texts, self._forward)

    def _encode(self, texts: Sequence[str], forward) -> np.ndarray:
        """Tokenise, batch by length, run `forward(ids, mask)` per batch (pooled rows), normalise."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # sentence-transformers strips each text before tokenising
        encodings = self.tokenizer.encode_batch([str(t).strip() for t in texts])
        out = np.zeros((len(encodings), self.dim), dtype=np.float32)
        for chunk in _chunks([len(e.ids) for e in encodings], self.batch_size):
            width = max(len(encodings[i].ids) for i in chunk)
            ids = np.full((len(chunk), width), self.pad_id, dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.float32)
            for row, i in enumerate(chunk):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1.0
            out[chunk] = forward(ids, mask)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self._w
        batch, width = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:width]
             + w["embeddings.token_type_embeddings.weight"][0])
        # dense layers work on (batch * width, dim): one BLAS call each instead of one per text
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        x = x.reshape(batch * width, self.dim)
        head_dim = self.dim // self.heads
        scale = 1.0 / math.sqrt(head_dim)
        # padded keys get a large negative score, so softmax gives them no weight
        key_bias = ((1.0 - mask) * -1e9)[:, None, None, :].astype(np.float32)
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."

            def heads(name: str) -> np.ndarray:
                y = x @ w[p + f"attention.self.{name}.weight"] + w[p + f"attention.self.{name}.bias"]
                return y.reshape(batch, width, self.heads, head_dim).transpose(0, 2, 1, 3)

            q, k, v = heads("query"), heads("key"), heads("value")
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + key_bias
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch * width, self.dim)
            attended = context @ w[p + "attention.output.dense.weight"] + w[p + "attention.output.dense.bias"]
            x = _layer_norm(attended + x, w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"], self.eps)
            hidden = _gelu(x @ w[p + "intermediate.dense.weight"] + w[p + "intermediate.dense.bias"])
            out = hidden @ w[p + "output.dense.weight"] + w[p + "output.dense.bias"]
            x = _layer_norm(out + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
        summed = (x.reshape(batch, width, self.dim) * mask[:, :, None]).sum(axis=1)
        return summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)


# what one more forward call costs, in padded token positions (measured in CPU seconds: a call of
# one 1-word text ~4 ms in onnxruntime, a token position ~0.3 ms)
CALL_COST = 12


def _chunks(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Text indices in batches of similar length, shortest first, at most batch_size each.

    Every text of a batch is padded to its longest, and the padding costs as much as real tokens
    (more in attention, which is quadratic in the width). An answer embeds one-word synonyms
    beside its whole question in one call: padded together, the words cost six times their own
    tokens. A new batch starts where the next text would leave more padding in the batch than
    both another forward call costs and a quarter of its real tokens (passages of similar
    length stay in large batches). The vectors do not depend on the batching (padding is masked).
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    out: list[list[int]] = []
    chunk: list[int] = []
    real = 0
    for i in order:
        if chunk:
            size, width = len(chunk) + 1, lengths[i]  # sorted: the new text is the widest
            padding = size * width - (real + width)
            if size > batch_size or padding > max(CALL_COST, real // 4):
                out.append(chunk)
                chunk, real = [], 0
        chunk.append(i)
        real += lengths[i]
    if chunk:
        out.append(chunk)
    return out


_BLAS_LIMITED = False


def _single_threaded_blas() -> None:
    """Run numpy's BLAS on one thread in this process, once.

    OpenBLAS's worker threads spin while they wait for each other; on a busy
    2-core machine one short-phrase forward pass took 0.4-1.2 s with two
    threads and 0.05 s with one, and large batches were 3x slower too.
    Parallel answering (answer_many) uses the cores through its own workers.
    """
    global _BLAS_LIMITED
    if _BLAS_LIMITED:
        return
    _BLAS_LIMITED = True
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - then OPENBLAS_NUM_THREADS=1 does the same
        return
    threadpool_limits(limits=1, user_api="blas")


def _json(path: Path, default: dict | None = None) -> dict:
    if not path.is_file():
        if default is not None:
            return default
        raise ConfigError(f"{path} is missing: the embedder needs a sentence-transformers model directory")
    return json.loads(path.read_text(encoding="utf-8"))
