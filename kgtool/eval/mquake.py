"""MQuAKE evaluation: multi-hop accuracy and Hop-Acc, by hop count, with cost,
for every method side by side.

Acc: a case counts as correct when ANY of its questions is answered with the
new answer or one of its aliases (MQuAKE's rule). Hop-Acc: a case counts when
some question's chain has exactly the gold post-edit hops, each hop's entity
matching the gold answer or an alias. Both compare names with kgtool's name
normaliser, as before. Per question, EM and F1 (SQuAD normalisation, against
the new answer and its aliases) are reported too. Edit scopes follow CARE's
settings: 1-edited (each case sees only its own edits), k-edited (cases in
groups of k), all-edited (every edit in force).
"""
from __future__ import annotations

from pathlib import Path

from kgtool.core.formats import MQUAKE, check_kind
from kgtool.core.text import normalize
from kgtool.errors import ConfigError
from kgtool.eval.harness import add_llm_counters, answer_with_each, perturbed, resolve_methods
from kgtool.eval.metrics import exact_match, max_f1
from kgtool.eval.report import CaseResult, EvalReport, MethodRun, QuestionResult
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


def chain_matches(chain: list[dict], case: Case) -> bool:
    if len(chain) != len(case.hops):
        return False
    return all(matches(step.get("answer"), hop.answer, hop.aliases) for step, hop in zip(chain, case.hops))


def _method_run(method: str, agents: str, cases: list[Case], answers, seconds: float) -> MethodRun:
    results, case_results, i = [], [], 0
    for case in cases:
        gold = [case.new_answer, *case.new_answer_aliases]
        got = answers[i:i + len(case.questions)]
        i += len(case.questions)
        ids = [f"{case.case_id}:{j}" for j in range(len(got))]
        for qid, a in zip(ids, got):
            results.append(QuestionResult(
                id=qid, question=a.question, prediction=a.answer, gold=gold, em=exact_match(a.answer, gold),
                f1=max_f1(a.answer, gold), hop_correct=chain_matches(a.chain, case), hops=len(case.hops),
                status=a.status, run_id=a.run_id, latency_ms=a.latency_ms, tokens=a.tokens, backtracks=a.backtracks,
                error=a.error, confidence=getattr(a, "confidence", None),
                confidence_evidence=getattr(a, "confidence_evidence", None),
                guess_em=exact_match(a.answer or getattr(a, "guess", None), gold), reason=getattr(a, "reason", None)))
        case_results.append(CaseResult(
            case.case_id, len(case.hops), any(matches(a.answer, case.new_answer, case.new_answer_aliases) for a in got),
            any(chain_matches(a.chain, case) for a in got), ids))
    return MethodRun(method, agents, results, seconds, case_results)


def evaluate_mquake(kg, path: str | Path, *, scope: str = "all", k: int = 100, methods=None,
                    agents: str | None = None, workers: int = 4, limit: int | None = None, perturb=None,
                    keep_perturbation: bool = False, progress=None) -> EvalReport:
    """Answer every question of every case with each method (ingest the file first).

    methods: names, "m1,m2" or "all"/None (every registered method). perturb: None,
    "drop=F,distract=F,seed=N" or a mapping (kgtool.eval.perturb). progress(done, total, method).
    """
    check_kind(path, MQUAKE)  # a QA or edit JSONL file gets the command that reads it
    result = read_edits(path, "mquake")
    cases = result.cases[:limit] if limit else result.cases
    if not cases:
        raise ConfigError(f"{path}: no evaluation cases found")
    names = resolve_methods(kg, methods)
    scopes = case_scopes(cases, scope, k)
    questions = [q for case in cases for q in case.questions]
    question_scopes = [sc for case, sc in zip(cases, scopes) for _ in case.questions]
    kind = agents or kg.default_agents()
    with perturbed(kg, perturb, keep=keep_perturbation) as pert:
        runs = answer_with_each(kg, questions, question_scopes, names, agents=kind, workers=workers,
                                perturbation=pert["id"] if pert else None, progress=progress)
    method_runs = [_method_run(r.method, kind, cases, r.answers, r.seconds) for r in runs]
    for method_run in method_runs:
        add_llm_counters(kg, method_run)
    return EvalReport(
        kind="mquake", data=str(path), format="mquake", agents=kind, scope=scope if scope != "k" else f"k={k}",
        perturbation=pert, notes=[str(b) for b in result.bad], runs=method_runs,
    )
