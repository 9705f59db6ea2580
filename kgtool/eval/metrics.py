"""Answer metrics: SQuAD exact match and token F1, chain (hop) matching, percentiles.

`normalize_answer` is SQuAD's official normalisation (lowercase, drop
punctuation, drop the articles a/an/the, collapse whitespace), which the
HotpotQA, MuSiQue and 2WikiMultihopQA evaluation scripts share, so figures are
comparable with the papers' EM/F1. A prediction is scored against every gold
answer and alias and keeps the best score.

`acc` (see kgtool.eval.qa) equals EM on QA data: the papers that report a
string-matched accuracy define it as exact match with any gold answer or alias
(VoG's Hits@1, "exact match accuracy"; CARE's Acc after MQuAKE). SAFE's Acc is
an LLM judge, which an offline, reproducible harness cannot be.
"""
from __future__ import annotations

import re
import string
from collections import Counter
from typing import Iterable, Sequence

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)


def normalize_answer(text: str | None) -> str:
    """SQuAD answer normalisation.

    >>> normalize_answer("The  Beatles!")
    'beatles'
    """
    if not text:
        return ""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def exact_match(prediction: str | None, golds: Iterable[str]) -> float:
    """1.0 when the normalised prediction equals some normalised gold answer, else 0.0."""
    if not prediction:
        return 0.0
    pred = normalize_answer(prediction)
    return float(any(pred == normalize_answer(g) for g in golds if g))


def token_f1(prediction: str | None, gold: str) -> float:
    """SQuAD token-level F1 between one prediction and one gold answer."""
    pred_tokens = normalize_answer(prediction).split()
    gold_tokens = normalize_answer(gold).split()
    if not pred_tokens or not gold_tokens:
        # both empty (e.g. gold "the" and prediction "a") count as equal, as in SQuAD
        return float(pred_tokens == gold_tokens and bool(prediction))
    common = Counter(pred_tokens) & Counter(gold_tokens)
    overlap = sum(common.values())
    if overlap == 0:
        return 0.0
    precision = overlap / len(pred_tokens)
    recall = overlap / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def max_f1(prediction: str | None, golds: Iterable[str]) -> float:
    """The best token F1 over every gold answer and alias."""
    if not prediction:
        return 0.0
    return max((token_f1(prediction, g) for g in golds if g), default=0.0)


def chain_matches(chain: Sequence[dict], gold_hops: Sequence[Sequence[str]]) -> bool:
    """Hop-Acc for one answer: as many hops as the gold chain, each ending at that hop's gold entity.

    `gold_hops[i]` holds the gold answer of hop i+1 and its aliases.
    """
    if not gold_hops or len(chain) != len(gold_hops):
        return False
    return all(exact_match(step.get("answer"), golds) for step, golds in zip(chain, gold_hops))


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank q-th percentile (0 for no values); what the MQuAKE report always used."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    idx = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return float(ordered[idx])


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0
