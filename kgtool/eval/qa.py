"""Multi-hop QA evaluation (kgtool JSONL, HotpotQA, MuSiQue, 2WikiMultihopQA, PathQuestion):
every method answers the same questions over the same graph (every edit in force,
optionally through a perturbation), scored side by side.

Per question: EM and F1 under SQuAD normalisation, the best over the gold answer
and its aliases (kgtool.eval.metrics). `acc` is EM: the papers that report a
string-matched accuracy (VoG's Hits@1 "exact match accuracy", CARE's Acc after
MQuAKE) count a prediction right when it matches a gold answer or alias; SAFE's
Acc is an LLM judge, which an offline, reproducible harness cannot be.
`hop_acc` is CARE's Hop-Acc on the questions whose data names the gold entity of
every hop (MuSiQue's decomposition, chained 2Wiki evidences, PathQuestion paths,
JSONL `hop_answers`): the chain has exactly those hops, each ending at that
hop's gold entity. By-hop figures group questions by their hop count.
"""
from __future__ import annotations

from pathlib import Path

from kgtool.eval.harness import add_llm_counters, answer_with_each, perturbed, resolve_methods
from kgtool.eval.metrics import chain_matches, exact_match, max_f1
from kgtool.eval.qa_data import QAItem, read_qa
from kgtool.eval.report import EvalReport, MethodRun, QuestionResult


def score(item: QAItem, answer) -> QuestionResult:
    """One question scored; on an unanswerable one (`answerable: false`) abstaining is right (SQuAD 2.0)."""
    guess = answer.answer or getattr(answer, "guess", None)
    if item.answerable:
        em, f1 = exact_match(answer.answer, item.answers), max_f1(answer.answer, item.answers)
        guess_em = exact_match(guess, item.answers)
    else:
        em = f1 = float(answer.status == "no_answer")
        guess_em = 0.0
    return QuestionResult(
        id=item.id, question=item.question, prediction=answer.answer, gold=list(item.answers),
        em=em, f1=f1,
        hop_correct=chain_matches(answer.chain, item.hop_answers) if item.hop_answers and item.answerable else None,
        hops=item.hops, status=answer.status, run_id=answer.run_id, latency_ms=answer.latency_ms,
        tokens=answer.tokens, backtracks=answer.backtracks, error=answer.error, answerable=item.answerable,
        confidence=getattr(answer, "confidence", None),
        confidence_evidence=getattr(answer, "confidence_evidence", None), guess_em=guess_em,
        reason=getattr(answer, "reason", None),
    )


def evaluate_qa(kg, path: str | Path, *, format: str | None = None, methods=None, agents: str | None = None,
                workers: int = 4, limit: int | None = None, perturb=None, keep_perturbation: bool = False,
                progress=None) -> EvalReport:
    """Answer every question of a QA file with each method; see the module docstring for the metrics.

    methods: names, "m1,m2" or "all"/None (every registered method). perturb: None,
    "drop=F,distract=F,seed=N" or a mapping (kgtool.eval.perturb). progress(done, total, method).
    """
    data = read_qa(path, format, limit=limit)
    names = resolve_methods(kg, methods)  # before any work: a typo fails at once
    kind = agents or kg.default_agents()
    questions = [item.question for item in data.items]
    with perturbed(kg, perturb, keep=keep_perturbation) as pert:
        runs = answer_with_each(kg, questions, ["all"] * len(questions), names, agents=kind, workers=workers,
                                perturbation=pert["id"] if pert else None, progress=progress)
    method_runs = [MethodRun(r.method, kind, [score(i, a) for i, a in zip(data.items, r.answers)], r.seconds)
                   for r in runs]
    for method_run in method_runs:
        add_llm_counters(kg, method_run)
    return EvalReport(
        kind="qa", data=str(path), format=data.format, agents=kind, scope="all", perturbation=pert,
        notes=data.notes, runs=method_runs,
    )
