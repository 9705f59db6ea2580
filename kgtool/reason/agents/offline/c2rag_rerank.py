"""C2RAG's contextual reranker: bge-reranker-v2-m3 where it can load, the offline scorer otherwise.

`choice`: "auto" uses the cross-encoder when FlagEmbedding is installed and
the model is on disk (a local directory, or already in the Hugging Face
cache), so answering never starts a 2 GB download by surprise; "cross_encoder"
or a model name/directory insists on it (a clear error if it cannot load);
"offline" never uses it. The loaded model is shared by every answer of the
process: loading it per question would cost seconds each time.

The offline scorer reads a recovery's passages by their words (TextRecoveryReranker):
how much of a relation variant's stemmed content words a passage holds, blended
half and half with BM25 as before. It used to embed every word of every pooled
passage too (the matcher's dense word match): ~40 % of a C2RAG text answer,
for passages of which only the top K_t are read; the reader still reads those
few with the dense matcher.
"""
from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kgtool.core.text import content_stems
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


class TextRecoveryReranker(OfflineReranker):
    """OfflineReranker whose passages are scored by their stemmed words, not embedded word by word."""

    def score(self, question: str, constraint_text: str, variants: Sequence[str], candidates: Sequence,
              relation_key: str | None = None) -> list[float]:
        if not candidates or getattr(candidates[0], "kind", "fact") != "passage":
            return super().score(question, constraint_text, variants, candidates, relation_key)
        lexical = np.asarray(self.bm25.score(f"{constraint_text} {question}", candidates), dtype=float)
        if lexical.max() > 0:
            lexical = lexical / lexical.max()
        wanted = [set(content_stems(v)) for v in variants if v]
        wanted = [w for w in wanted if w]
        out = []
        for passage, lex in zip(candidates, lexical):
            held = set(content_stems(f"{passage.title or ''} {passage.text or ''}"))
            said = max((len(w & held) / len(w) for w in wanted), default=0.0)
            out.append(float(0.5 * said + 0.5 * lex))
        return out


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
        return TextRecoveryReranker(services)
    model = DEFAULT_MODEL if choice in ("auto", "cross_encoder") else choice
    if choice == "auto" and not cross_encoder_available(model):
        return TextRecoveryReranker(services)
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
