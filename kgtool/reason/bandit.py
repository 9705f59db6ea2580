"""VoG's adaptive parts, as pure functions: entropy-adaptive retrieval width, the
KG-aware UCB selector over revision context scopes, and the revision reward.

Nothing here reads the graph or calls a model; the VoG loop
(kgtool.reason.methods.vog) feeds it what it stored and read back, so every
number can be recomputed from a stored run.

Paper references (../shared/papers/vog.txt):
- width: Appendix A.2, Eqs. 5-8 and Algorithm 1;
- selector: Section 3.4.1, Eq. 2, with the bonuses of Appendix B.1 (Eqs. 9-11)
  and Algorithm 2;
- reward: Section 3.4.2, Eqs. 3-4 and Appendix B.2.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

ARMS = ("local", "lookahead", "global")


# ----------------------------------------------------------------- entropy


def normalised_entropy(p: Sequence[float]) -> float:
    """-sum p log p / log n, in 0..1 (0 for one outcome or none)."""
    arr = np.asarray(p, dtype=float)
    arr = arr[arr > 0]
    n = len(p)
    if n <= 1 or arr.size == 0:
        return 0.0
    return float(min(1.0, max(0.0, -(arr * np.log(arr)).sum() / math.log(n))))


def softmax(scores: Sequence[float], temperature: float = 1.0) -> np.ndarray:
    z = np.asarray(scores, dtype=float) / max(temperature, 1e-9)
    z = np.exp(z - z.max()) if z.size else z
    return z / z.sum() if z.size else z


def adaptive_width(scores: Sequence[float], k_min: int = 3, k_max: int = 10,
                   temperature: float = 1.0) -> tuple[int, float]:
    """(k, H_norm): how many of the candidates to keep, from how flat their scores are.

    k = max(k_min, min(floor(k_min + (k_max - k_min) * H_norm), n)) over the
    softmax of the scores (Eq. 8): a peaked distribution keeps few candidates,
    a flat one many. The softmax temperature stands in for the scale of the
    paper's dot-product scores; with scores in 0..1 and temperature 1 every
    distribution would look flat.
    """
    n = len(scores)
    if n == 0:
        return 0, 0.0
    h = normalised_entropy(softmax(scores, temperature))
    k = max(k_min, min(math.floor(k_min + (k_max - k_min) * h), n))
    return min(k, n), h


def answer_entropy(answers: Sequence[str | None]) -> float:
    """H_t: the normalised entropy of the answers the candidate plans give (None counts as an answer)."""
    if not answers:
        return 0.0
    counts: dict[str | None, int] = {}
    for a in answers:
        counts[a] = counts.get(a, 0) + 1
    p = np.array(list(counts.values()), dtype=float) / len(answers)
    if len(counts) <= 1:
        return 0.0
    # normalised by the number of plans, so all-different answers give 1
    return float(min(1.0, -(p * np.log(p)).sum() / math.log(len(answers))))


# ------------------------------------------------------------------ selector


@dataclass(frozen=True)
class SelectorConfig:
    """The UCB selector's constants (Appendix B.1 and B.3 defaults)."""

    c: float = 1.4  # exploration weight alpha
    lambda_ent: float = 0.1
    lambda_kg: float = 0.1
    ent_a: float = 6.0  # sigmoid steepness of the entropy bonus
    ent_b: float = 0.5  # and its centre
    kg_delta: float = 0.2  # repeated-entity bonus of the global arm
    kg_kappa: float = 4.0  # steepness of the lookahead's depth penalty
    diversity: Mapping[str, float] = field(default_factory=lambda: {"local": 0.05, "lookahead": 0.1, "global": 0.2})
    window: int = 3  # count_k: selections looked back on for the diversity penalty


@dataclass
class ArmStats:
    """What the selector knows about one arm: selections, summed reward, selections in the last window."""

    n: int = 0
    reward: float = 0.0
    recent: int = 0


@dataclass
class Choice:
    """One selection: the arm, every arm's score and the terms that made it (all stored on the run)."""

    arm: str
    scores: dict[str, float]  # UCB_t(c); inf for an arm never tried
    bonuses: dict[str, dict[str, float]]  # per arm: exploit, explore, ent, kg, div
    entropy: float
    depth: float  # t / T_d


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def ucb_scores(stats: Mapping[str, ArmStats], *, arms: Sequence[str], entropy: float, step: int, expected_depth: float,
               repeated: bool, cfg: SelectorConfig) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """UCB_t(c) = R_c/N_c + alpha * sqrt(log N / N_c + B_ent + B_KG + B_div) (Eq. 2), per arm.

    An arm never selected scores +inf (Algorithm 2, line 8). The bonuses can be
    negative; the square root is taken of their sum with the exploration term
    floored at zero, so a heavily penalised arm simply loses its exploration
    credit.
    """
    total = sum(stats[a].n for a in arms if a in stats)
    depth = step / expected_depth if expected_depth > 0 else 0.0
    scores: dict[str, float] = {}
    terms: dict[str, dict[str, float]] = {}
    for arm in arms:
        s = stats.get(arm, ArmStats())
        b_ent = cfg.lambda_ent * (_sigmoid(cfg.ent_a * (entropy - cfg.ent_b)) if arm == "global" else 0.0)
        b_kg = cfg.lambda_kg * ((cfg.kg_delta * float(repeated)) if arm == "global" else
                                (-math.tanh(cfg.kg_kappa * depth) if arm == "lookahead" else 0.0))
        b_div = -float(cfg.diversity.get(arm, 0.0)) * s.recent
        if s.n == 0:
            scores[arm] = math.inf
            terms[arm] = {"exploit": 0.0, "explore": math.inf, "ent": b_ent, "kg": b_kg, "div": b_div}
            continue
        exploit = s.reward / s.n
        inner = math.log(max(total, 1)) / s.n + b_ent + b_kg + b_div
        explore = cfg.c * math.sqrt(max(inner, 0.0))
        scores[arm] = exploit + explore
        terms[arm] = {"exploit": exploit, "explore": explore, "ent": b_ent, "kg": b_kg, "div": b_div}
    return scores, terms


def select_arm(stats: Mapping[str, ArmStats], *, arms: Sequence[str] = ARMS, entropy: float = 0.0, step: int = 1,
               expected_depth: float = 0.0, repeated: bool = False, cfg: SelectorConfig = SelectorConfig()) -> Choice:
    """The arm with the highest UCB score; ties go to the arm listed first (local before lookahead before global)."""
    if not arms:
        raise ValueError("the selector needs at least one arm")
    scores, terms = ucb_scores(stats, arms=arms, entropy=entropy, step=step, expected_depth=expected_depth,
                               repeated=repeated, cfg=cfg)
    arm = max(arms, key=lambda a: (scores[a], -arms.index(a)))
    return Choice(arm, scores, terms, entropy, step / expected_depth if expected_depth > 0 else 0.0)


# ------------------------------------------------------------------- reward

METRICS = ("validation", "quality", "alignment", "coherence", "efficiency")


def task_reward(metrics: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """nu_local: the weighted mean of the five revision metrics (Appendix B.2), each in 0..1."""
    total = sum(max(0.0, float(weights.get(m, 0.0))) for m in METRICS)
    if total <= 0:
        return 0.0
    return sum(max(0.0, float(weights.get(m, 0.0))) * min(1.0, max(0.0, float(metrics.get(m, 0.0))))
               for m in METRICS) / total


def confidence_reward(answer: str | None, pool: Sequence[str | None]) -> float:
    """nu_conf (Eq. 3): the share of the candidate plans that give this plan's answer."""
    if not pool:
        return 0.0
    return sum(1 for a in pool if a == answer) / len(pool)


def combined_reward(local: float, conf: float, entropy: float, beta: float) -> tuple[float, float]:
    """(nu_t, lambda_t): lambda_t = beta * exp(-H_t), nu_t = (1 - lambda_t) nu_local + lambda_t nu_conf (Eq. 4)."""
    lam = beta * math.exp(-entropy)
    return (1.0 - lam) * local + lam * conf, lam


def verification_gain(before: float, after: float) -> float:
    """The share of the confidence the failed check lacked that the revision won back (0..1)."""
    if before >= 1.0:
        return 1.0 if after >= 1.0 else 0.0
    return min(1.0, max(0.0, (after - before) / (1.0 - before)))
