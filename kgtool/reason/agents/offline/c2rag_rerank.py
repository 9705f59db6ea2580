"""C2RAG's contextual reranker: bge-reranker-v2-m3 where it can load, the offline scorer otherwise.

`choice`: "auto" uses the cross-encoder when FlagEmbedding is installed and
the model is on disk (a local directory, or already in the Hugging Face
cache), so answering never starts a 2 GB download by surprise; "cross_encoder"
or a model name/directory insists on it (a clear error if it cannot load);
"offline" never uses it. The loaded model is shared by every answer of the
process: loading it per question would cost seconds each time.
"""
from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path

from kgtool.errors import ConfigError
from kgtool.reason.agents.offline.c2rag import OfflineReranker

DEFAULT_MODEL = "BAAI/bge-reranker-v2-m3"
_models: dict[str, object] = {}
_lock = threading.Lock()


def _on_disk(model: str) -> bool:
    if Path(model).expanduser().is_dir():
        return True
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    found = try_to_load_from_cache(model, "config.json")
    return isinstance(found, str)


def cross_encoder_available(model: str = DEFAULT_MODEL) -> bool:
    return importlib.util.find_spec("FlagEmbedding") is not None and _on_disk(model)


class CrossEncoderReranker:
    """z = CrossEncoder(q || Lin(tau) || Lin(c)) through the registered `cross_encoder` scorer."""

    name = "cross_encoder"

    def __init__(self, scorer):
        self.scorer = scorer

    def score(self, question: str, constraint_text: str, variants: Sequence[str], candidates: Sequence,
              relation_key: str | None = None) -> list[float]:
        if not candidates:
            return []
        return [float(v) for v in self.scorer.score(f"{question} {constraint_text}", candidates)]


def build_reranker(services, choice: str = "auto"):
    """The reranker `choice` names, over the graph's services (kgtool.reason.services.Services)."""
    choice = (choice or "auto").strip()
    if choice == "offline":
        return OfflineReranker(services)
    model = DEFAULT_MODEL if choice in ("auto", "cross_encoder") else choice
    if choice == "auto" and not cross_encoder_available(model):
        return OfflineReranker(services)
    if importlib.util.find_spec("FlagEmbedding") is None:
        raise ConfigError("reranker=cross_encoder needs FlagEmbedding: pip install 'kgtool[bge]', "
                          "or use reranker=offline")
    with _lock:
        scorer = _models.get(model)
        if scorer is None:
            scorer = services.scorers.create("cross_encoder", model=model, include_triple=True)
            scorer._load()  # fail here, with the scorer's own message, not inside a hop
            _models[model] = scorer
    return CrossEncoderReranker(scorer)
