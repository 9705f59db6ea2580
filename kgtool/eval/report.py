"""The side-by-side report of an evaluation: per-question results, per-method summaries,
the JSON shape and the terminal table.

JSON (`EvalReport.as_dict()`):

    {"kind": "qa" | "mquake", "data": path, "format": ..., "agents": ..., "scope": ...,
     "questions": n, "perturbation": {id, drop, distract, seed, hidden, added, removed} | null,
     "notes": [...], "methods": {name: summary, ...},
     ...and, when one method ran, that method's summary fields at top level too}

A summary (`method_summary`): method, agents, questions, acc, em, f1, hop_acc
(None when no question has gold hops), by_hops (per hop count: questions, acc,
em, f1, hop_acc), latency_ms (p50, p90, mean), tokens_per_question,
backtracks_per_question, status (counts), failed (questions whose run failed or raised),
fallbacks (LLM role fallbacks to the offline role, summed over the runs), fallback_questions (questions with
at least one), unusable_replies and reasks (LLM replies that stayed unusable, re-asks), answered (how many questions the method marked `answered`),
status_precision (the share of those that are right, EM; None when none was), the abstention measures of
kgtool.eval.abstention (answerable, unanswerable, acc_answerable, no_answer_precision, no_answer_recall,
no_answer_f1, coverage, selective_acc, answered_unanswerable, outcomes, aurc, risk_coverage), seconds, and
results (one per question: id, question, prediction, gold, em, f1, hop_correct, hops, status,
run_id, latency_ms, tokens, backtracks, error, role_fallbacks, unusable_replies, reasks, answerable,
confidence, confidence_evidence (what the confidence was weighed from: kgtool.reason.abstain.ConfidenceEvidence),
guess_em, reason). On a question the data marks unanswerable, em and f1 are 1 for `no_answer` and 0
otherwise (SQuAD 2.0), so acc/em over a mixed file is SQuAD 2.0's overall figure and `acc_answerable` the
answerable questions' own. A question whose answering raised
(a statement that kept failing, an LLM endpoint that is down) counts as wrong with
status 'failed' and its error, and is listed in the notes: one question never ends
the evaluation. MQuAKE runs carry `cases`: acc and
hop_acc are then MQuAKE's per-case figures (kgtool.eval.mquake), by_hops counts
cases too, and `case_results` lists them.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field

from kgtool.eval.abstention import abstention_summary
from kgtool.eval.metrics import mean, percentile


@dataclass
class QuestionResult:
    id: str
    question: str
    prediction: str | None
    gold: list[str]
    em: float
    f1: float
    hop_correct: bool | None  # None when the data has no gold hops for the question
    hops: int | None
    status: str
    run_id: str
    latency_ms: float
    tokens: int = 0
    backtracks: int = 0
    error: str | None = None  # why a 'failed' question failed (its Run says the same)
    # the Run's LLM counters (kgtool.eval.harness.add_llm_counters; zero with offline agents)
    role_fallbacks: int = 0
    unusable_replies: int = 0
    reasks: int = 0
    answerable: bool = True  # False: the data marks the question unanswerable (`no_answer` is right)
    confidence: float | None = None  # the Run's confidence (0-1) in its answer or guess
    confidence_evidence: dict | None = None  # what the confidence was weighed from (the Answer's)
    guess_em: float = 0.0  # EM of the method's best guess (its answer, or the guess a `no_answer` kept)
    reason: str | None = None  # why the status is not `answered` (the Run's reason)


@dataclass
class CaseResult:
    """An MQuAKE case: correct when any of its questions is, hop-correct when any chain is."""

    case_id: str
    hops: int
    correct: bool
    hop_correct: bool
    question_ids: list[str]


@dataclass
class MethodRun:
    method: str
    agents: str
    results: list[QuestionResult]
    seconds: float
    cases: list[CaseResult] | None = None


@dataclass
class EvalReport:
    kind: str
    data: str
    format: str
    agents: str
    scope: str
    runs: list[MethodRun]
    perturbation: dict | None = None
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        methods = {run.method: method_summary(run) for run in self.runs}
        out = {"kind": self.kind, "data": self.data, "format": self.format, "agents": self.agents,
               "scope": self.scope, "questions": len(self.runs[0].results) if self.runs else 0,
               "perturbation": self.perturbation, "notes": list(self.notes) + self.failure_notes()}
        if len(methods) == 1:
            out.update(next(iter(methods.values())))
        out["methods"] = methods
        return out


    def failure_notes(self, limit: int = 20) -> list[str]:
        """One note per failed question (at most `limit` per method, then how many more)."""
        notes = []
        for run in self.runs:
            failed = [r for r in run.results if r.status == "failed"]
            for r in failed[:limit]:
                notes.append(f"{run.method}: question {r.id} failed: {r.error or 'see its run'}"
                             + (f" (run {r.run_id})" if r.run_id else ""))
            if len(failed) > limit:
                notes.append(f"{run.method}: {len(failed) - limit} more question(s) failed")
        return notes


def _rate(values) -> float | None:
    values = [float(v) for v in values if v is not None]
    return mean(values) if values else None


def _question_block(results: list[QuestionResult]) -> dict:
    em = _rate(r.em for r in results) or 0.0
    return {"questions": len(results), "acc": em, "em": em, "f1": _rate(r.f1 for r in results) or 0.0,
            "hop_acc": _rate(r.hop_correct for r in results)}


def method_summary(run: MethodRun) -> dict:
    results = run.results
    latencies = [r.latency_ms for r in results]
    out = {"method": run.method, "agents": run.agents}
    out.update(_question_block(results))
    by_hops: dict[int, list[QuestionResult]] = defaultdict(list)
    for r in results:
        if r.hops is not None:
            by_hops[r.hops].append(r)
    out["by_hops"] = {str(h): _question_block(rs) for h, rs in sorted(by_hops.items())}
    if run.cases is not None:
        _case_figures(out, run)
    out.update({
        "latency_ms": {"p50": percentile(latencies, 50), "p90": percentile(latencies, 90), "mean": mean(latencies)},
        "tokens_per_question": mean(r.tokens for r in results),
        "backtracks_per_question": mean(r.backtracks for r in results),
        "status": dict(sorted(Counter(r.status for r in results).items())),
        **outcome_counts(results),
        **status_precision(results),
        **abstention_summary(results),
        "seconds": round(run.seconds, 2),
        "results": [asdict(r) for r in results],
    })
    if run.cases is not None:
        out["case_results"] = [asdict(c) for c in run.cases]
    return out


def outcome_counts(results: list[QuestionResult]) -> dict:
    """What went wrong on the way: failed questions and the LLM's fallbacks, unusable replies and re-asks."""
    return {"failed": sum(r.status == "failed" for r in results),
            "fallbacks": sum(r.role_fallbacks for r in results),
            "fallback_questions": sum(r.role_fallbacks > 0 for r in results),
            "unusable_replies": sum(r.unusable_replies for r in results),
            "reasks": sum(r.reasks for r in results)}


def fallback_text(summary: dict) -> str:
    """Role fallbacks and the questions they hit, e.g. "3 in 2 q" ("0" when none; "-" in an older report)."""
    fallbacks = summary.get("fallbacks")
    if fallbacks is None:
        return "-"
    return f"{fallbacks} in {summary.get('fallback_questions', 0)} q" if fallbacks else "0"


def status_precision(results: list[QuestionResult]) -> dict:
    """Of the questions the method marked `answered`, the share that are right (EM with a gold answer or alias).

    What a user may trust `answered` for: None when nothing was marked answered.
    """
    answered = [r for r in results if r.status == "answered"]
    return {"answered": len(answered),
            "status_precision": mean(r.em for r in answered) if answered else None}


def _case_figures(out: dict, run: MethodRun) -> None:
    """MQuAKE's per-case Acc and Hop-Acc replace the per-question ones (EM and F1 stay per question)."""
    cases = run.cases or []
    n = len(cases) or 1
    out["cases"] = len(cases)
    out["acc"] = sum(c.correct for c in cases) / n
    out["hop_acc"] = sum(c.hop_correct for c in cases) / n
    by_id = {r.id: r for r in run.results}
    grouped: dict[int, list[CaseResult]] = defaultdict(list)
    for c in cases:
        grouped[c.hops].append(c)
    by_hops = {}
    for h, cs in sorted(grouped.items()):
        questions = [by_id[q] for c in cs for q in c.question_ids if q in by_id]
        block = _question_block(questions)
        block.update(cases=len(cs), acc=sum(c.correct for c in cs) / len(cs),
                     hop_acc=sum(c.hop_correct for c in cs) / len(cs))
        by_hops[str(h)] = block
    out["by_hops"] = by_hops


def _fmt(value, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def precision_text(summary: dict) -> str:
    """Status precision and how many answers it rests on, e.g. "0.987 of 294" ("-" when none was answered)."""
    precision = summary.get("status_precision")
    return "-" if precision is None else f"{precision:.3f} of {summary.get('answered', 0)}"


def rich_table(data: dict, *, wide: bool = False):
    """One row per method. By default the columns that fit 120 characters: accuracy (overall, on the
    answerable questions), what `answered` is worth (precision, coverage), abstention (no-answer precision and
    recall, AURC), p50 latency and failures, and LLM fallbacks when there were any; `wide` adds EM, F1, Acc
    by hop count, p90, tokens, backtracks, fallbacks and the status counts."""
    from rich.table import Table

    methods = data["methods"]
    hop_counts = sorted({h for s in methods.values() for h in s["by_hops"]}, key=int)
    title = f"{data['kind']} {data['data']}: agents {data['agents']}, scope {data['scope']}"
    if data.get("perturbation"):
        p = data["perturbation"]
        title += f", perturbation {p['id']} (drop {p['drop']}, distract {p['distract']}, seed {p['seed']})"
    table = Table(title=title)
    cells = {  # column -> the cell of a summary; compact columns first, in order
        "method": lambda n, s: n,
        "cases" if data["kind"] == "mquake" else "q": lambda n, s: str(s.get("cases", s["questions"])),
        "Acc": lambda n, s: _fmt(s["acc"]),
        "Hop-Acc": lambda n, s: _fmt(s["hop_acc"]),
        "Acc ans.": lambda n, s: _fmt(s.get("acc_answerable")),
        "answered prec.": lambda n, s: precision_text(s),
        "cover.": lambda n, s: _fmt(s.get("coverage"), 2),
        "NoAns P/R": lambda n, s: f"{_fmt(s.get('no_answer_precision'), 2)}/{_fmt(s.get('no_answer_recall'), 2)}",
        "AURC": lambda n, s: _fmt(s.get("aurc")),
        "p50 ms": lambda n, s: _fmt(s["latency_ms"]["p50"], 1),
        "failed": lambda n, s: str(s.get("failed", "-")),
    }
    if not wide and any(s.get("fallbacks") for s in methods.values()):
        # an LLM's unusable replies that offline agents answered for: the figures rest on them, so say so
        cells["fallbacks"] = lambda n, s: fallback_text(s)
    if wide:
        cells.update({
            "EM": lambda n, s: _fmt(s["em"]), "F1": lambda n, s: _fmt(s["f1"]),
            **{f"Acc {h}-hop": (lambda n, s, h=h: _fmt(s["by_hops"][h]["acc"]) if h in s["by_hops"] else "-")
               for h in hop_counts},
            "p90 ms": lambda n, s: _fmt(s["latency_ms"]["p90"], 1),
            "tokens/q": lambda n, s: _fmt(s["tokens_per_question"], 1),
            "backtracks/q": lambda n, s: _fmt(s["backtracks_per_question"], 2),
            "fallbacks": lambda n, s: fallback_text(s),
            "status": lambda n, s: ", ".join(f"{k} {v}" for k, v in s["status"].items()),
        })
    for col in cells:
        table.add_column(col, justify="left" if col in ("method", "status") else "right")
    for name, s in methods.items():
        table.add_row(*[cell(name, s) for cell in cells.values()])
    return table
