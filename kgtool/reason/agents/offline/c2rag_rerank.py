"""C2RAG's contextual reranker: bge-reranker-v2-m3 where it can load, the offline scorer otherwise.

`choice`: "auto" uses the cross-encoder when FlagEmbedding is installed and
the model is on disk (a local directory, or already in the Hugging Face
cache), so answering never starts a 2 GB download by surprise; "cross_encoder"
or a model name/directory insists on it (a clear error if it cannot load);
"offline" never uses it. The loaded model is shared by every answer of the
process: loading it per question would cost seconds each time.

The offline scorer (TextRecoveryReranker) scores a recovery's passages as
OfflineReranker does, how they say the constraint's variants (the matcher's best
word) blended half and half with BM25, without embedding the words of a passage
that holds one of the variants' own words: such a passage says them fully (a
word of the relation scores 1, the most any word can). Embedding every word of
the 8 pooled passages was ~40 % of a C2RAG text answer.
"""
from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kgtool.errors import ConfigError
from kgtool.reason.agents.offline.c2rag import OfflineReranker
from kgtool.reason.agents.offline.c2rag_spans import says_lexically

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
    """OfflineReranker's scores; a passage holding a variant's own word is not embedded word by word."""

    def score(self, question: str, constraint_text: str, variants: Sequence[str], candidates: Sequence,
              relation_key: str | None = None) -> list[float]:
        if not candidates or getattr(candidates[0], "kind", "fact") != "passage":
            return super().score(question, constraint_text, variants, candidates, relation_key)
        lexical = np.asarray(self.bm25.score(f"{constraint_text} {question}", candidates), dtype=float)
        if lexical.max() > 0:
            lexical = lexical / lexical.max()
        prof = self.matcher.profile("variants:" + "|".join(variants), list(variants))
        texts = [p.text or "" for p in candidates]
        said = {i: 1.0 for i, t in enumerate(texts) if says_lexically(t, prof.stems)}
        rest = [i for i in range(len(texts)) if i not in said]
        for i, analysis in zip(rest, self.matcher.analyse_many([(texts[i], ()) for i in rest], whole=False)):
            said[i] = self.matcher.expresses(analysis, prof)
        return [float(0.5 * said[i] + 0.5 * lex) for i, lex in enumerate(lexical)]


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
