"""MQuAKE evaluation: multi-hop accuracy and Hop-Acc, by hop count, with cost.

Acc: a case counts as correct when ANY of its questions is answered with the
new answer or one of its aliases (MQuAKE's rule). Hop-Acc: a case counts when
some question's chain has exactly the gold post-edit hops, each hop's entity
matching the gold answer or an alias. Edit scopes follow CARE's settings:
1-edited (each case sees only its own edits), k-edited (cases in groups of k),
all-edited (every edit in force).
"""
from __future__ import annotations

import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from kgtool.errors import ConfigError
from kgtool.ingest.linking import normalize
from kgtool.ingest.readers import read_edits
from kgtool.ingest.records import Case


def matches(predicted: str | None, gold: str, aliases) -> bool:
    if not predicted:
        return False
    p = normalize(predicted)
    return any(p == normalize(g) for g in (gold, *aliases) if g)


def case_scopes(cases: list[Case], scope: str, k: int) -> list[object]:
    """One scope per case: its own edits (1), its group of k (k) or every edit (all)."""
    if scope == "all":
        return ["all"] * len(cases)
    if scope == "1":
        return [{"cases": [c.case_id]} for c in cases]
    if scope == "k":
        if k < 1:
            raise ConfigError("--k must be at least 1")
        out = []
        for start in range(0, len(cases), k):
            group = [c.case_id for c in cases[start:start + k]]
            out.extend({"cases": group} for _ in group)
        return out
    raise ConfigError(f"scope must be 1, k or all; got {scope!r}")


@dataclass
class CaseResult:
    case_id: str
    hops: int
    correct: bool
    hop_correct: bool
    answers: list[str | None]
    run_ids: list[str]


@dataclass
class Report:
    method: str
    agents: str
    scope: str
    cases: list[CaseResult] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict:
        by_hops = defaultdict(list)
        for c in self.cases:
            by_hops[c.hops].append(c)
        n = len(self.cases) or 1
        lat = sorted(self.latencies_ms)
        return {
            "method": self.method, "agents": self.agents, "scope": self.scope,
            "cases": len(self.cases), "questions": len(self.latencies_ms),
            "acc": sum(c.correct for c in self.cases) / n,
            "hop_acc": sum(c.hop_correct for c in self.cases) / n,
            "by_hops": {
                str(h): {"cases": len(cs), "acc": sum(c.correct for c in cs) / len(cs),
                         "hop_acc": sum(c.hop_correct for c in cs) / len(cs)}
                for h, cs in sorted(by_hops.items())
            },
            "latency_ms": {"p50": _pct(lat, 50), "p90": _pct(lat, 90)},
            "tokens_per_question": statistics.fmean(self.tokens) if self.tokens else 0.0,
            "seconds": round(self.seconds, 2),
            "results": [vars(c) for c in self.cases],
        }


def _pct(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    idx = min(len(sorted_values) - 1, max(0, round(q / 100 * (len(sorted_values) - 1))))
    return sorted_values[idx]


def chain_matches(chain: list[dict], case: Case) -> bool:
    if len(chain) != len(case.hops):
        return False
    return all(matches(step.get("answer"), hop.answer, hop.aliases) for step, hop in zip(chain, case.hops))


def evaluate_mquake(kg, path: str | Path, *, scope: str = "all", k: int = 100, method: str = "care",
                    agents: str | None = None, workers: int = 4, limit: int | None = None,
                    progress=None) -> Report:
    result = read_edits(path, "mquake")
    cases = result.cases[:limit] if limit else result.cases
    if not cases:
        raise ConfigError(f"{path}: no evaluation cases found")
    scopes = case_scopes(cases, scope, k)
    questions, question_scopes, owners = [], [], []
    for case, sc in zip(cases, scopes):
        for q in case.questions:
            questions.append(q)
            question_scopes.append(sc)
            owners.append(case.case_id)
    kind = agents or kg.default_agents()
    report = Report(method, kind, scope if scope != "k" else f"k={k}")
    t0 = time.perf_counter()
    answers = kg.answer_many(questions, workers=workers, method=method, agents=kind, scopes=question_scopes,
                             progress=progress)
    report.seconds = time.perf_counter() - t0
    by_case = defaultdict(list)
    for owner, ans in zip(owners, answers):
        by_case[owner].append(ans)
        report.latencies_ms.append(ans.latency_ms)
        report.tokens.append(ans.tokens)
    for case in cases:
        got = by_case[case.case_id]
        correct = any(matches(a.answer, case.new_answer, case.new_answer_aliases) for a in got)
        hop_correct = any(chain_matches(a.chain, case) for a in got)
        report.cases.append(CaseResult(case.case_id, len(case.hops), correct, hop_correct,
                                       [a.answer for a in got], [a.run_id for a in got]))
    return report
