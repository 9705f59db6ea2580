"""Measures of knowing when not to answer (selective QA), per method.

Each question's result has a status (`answered`, `unverified`, `no_answer`), whether its data
marks it answerable, whether the answer shown is right (EM), and a confidence (0-1, the Run's).
On an unanswerable question no answer is right; abstaining (`no_answer`) is.

- `acc_answerable`: EM on the answerable questions (a `no_answer` is wrong there).
- `no_answer_precision` / `no_answer_recall` / `no_answer_f1`: SQuAD 2.0's no-answer figures with
  `no_answer` as the prediction "unanswerable": of the questions the method abstained on, the share
  the data marks unanswerable; of the unanswerable questions, the share it abstained on (None when
  the denominator is empty).
- `coverage`: the share of all questions the method marked `answered`; `selective_acc`: the share of
  those that are right, the selective accuracy at that coverage (an answer to an unanswerable
  question is wrong). It equals `status_precision`, named as the selective-QA literature does.
- `risk_coverage`: the risk-coverage curve (Geifman & El-Yaniv 2017): questions ordered by confidence,
  highest first; at each distinct confidence, coverage = the share of questions at or above it and
  risk = the share of those whose shown answer or guess is wrong (no guess is wrong); a list of
  [coverage, risk] points from the highest confidence down. `aurc`: the area under it, the mean risk
  over the n prefixes of that order (ties share their group's risk); lower is better, and a
  confidence that ranks every right answer first gets the least a method with its accuracy can.
"""
from __future__ import annotations

from typing import Sequence


def right(result) -> bool:
    """Is what the method showed right: an answer matching gold on an answerable question, `no_answer`
    on an unanswerable one."""
    if not getattr(result, "answerable", True):
        return result.status == "no_answer"
    return result.status != "no_answer" and result.em >= 1.0


def _guess_right(result) -> bool:
    """Is the method's best guess (shown or kept in the trace) right? Used by the risk-coverage curve,
    which answers with every guess above a confidence cut."""
    return bool(getattr(result, "answerable", True) and result.guess_em >= 1.0)


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def risk_coverage(results: Sequence) -> tuple[list[list[float]], float | None]:
    """The curve's [coverage, risk] points and its area (see the module docstring)."""
    n = len(results)
    if not n:
        return [], None
    ordered = sorted(results, key=lambda r: -(r.confidence or 0.0))
    points, wrong, area, i = [], 0, 0.0, 0
    while i < n:
        j, level = i, ordered[i].confidence or 0.0
        while j < n and (ordered[j].confidence or 0.0) == level:
            wrong += not _guess_right(ordered[j])
            j += 1
        risk = wrong / j
        area += risk * (j - i)
        points.append([round(j / n, 4), round(risk, 4)])
        i = j
    return points, area / n


def abstention_summary(results: Sequence) -> dict:
    """The figures of the module docstring for one method's results."""
    answerable = [r for r in results if getattr(r, "answerable", True)]
    unanswerable = [r for r in results if not getattr(r, "answerable", True)]
    abstained = [r for r in results if r.status == "no_answer"]
    answered = [r for r in results if r.status == "answered"]
    precision = _ratio(sum(not getattr(r, "answerable", True) for r in abstained), len(abstained))
    recall = _ratio(sum(r.status == "no_answer" for r in unanswerable), len(unanswerable))
    f1 = (2 * precision * recall / (precision + recall)) if precision and recall else (
        0.0 if precision is not None and recall is not None else None)
    curve, aurc = risk_coverage(results)
    return {
        "answerable": len(answerable), "unanswerable": len(unanswerable),
        "acc_answerable": _ratio(sum(right(r) for r in answerable), len(answerable)),
        "no_answer_precision": precision, "no_answer_recall": recall, "no_answer_f1": f1,
        "coverage": _ratio(len(answered), len(results)),
        "selective_acc": _ratio(sum(right(r) for r in answered), len(answered)),
        "answered_unanswerable": sum(r.status == "answered" for r in unanswerable),
        "outcomes": outcome_split(results),
        "aurc": aurc, "risk_coverage": curve,
    }


def outcome_split(results: Sequence) -> dict:
    """How the statuses split, right and wrong, on answerable and unanswerable questions:
    {"answerable": {"answered right": n, "answered wrong": n, "unverified right": n, ...}, "unanswerable": {...}}."""
    out: dict[str, dict[str, int]] = {}
    for r in results:
        part = "answerable" if getattr(r, "answerable", True) else "unanswerable"
        if r.status in ("answered", "unverified") and part == "answerable":
            key = f"{r.status} {'right' if r.em >= 1.0 else 'wrong'}"
        else:
            key = r.status
        out.setdefault(part, {})
        out[part][key] = out[part].get(key, 0) + 1
    return {part: dict(sorted(split.items())) for part, split in sorted(out.items())}
