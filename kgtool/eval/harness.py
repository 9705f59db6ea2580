"""What every evaluation shares: which methods to run, the perturbed view, and
answering the same questions with each method in turn.

Methods run one after another (each with `workers` parallel questions), so
their latencies are measured under the same load and do not slow each other.
"""
from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

from kgtool.core.scope import Scope
from kgtool.core.types import Answer
from kgtool.errors import ConfigError
from kgtool.eval.perturb import Perturbation, PerturbSpec, create_perturbation, remove_perturbation

# progress(done, total, method): questions answered so far over every method
Progress = Callable[[int, int, str], None]


def resolve_methods(kg, methods: str | Sequence[str] | None) -> list[str]:
    """Method names from "m1,m2", a list, or "all"/None (every registered method), checked against kg.methods."""
    registered = kg.methods.names()
    if methods is None:
        methods = ["all"]
    elif isinstance(methods, str):
        methods = methods.split(",")
    names: list[str] = []
    for name in (m.strip() for m in methods):
        if not name:
            continue
        names.extend(registered if name == "all" else [name])
    names = list(dict.fromkeys(names))
    unknown = [n for n in names if n not in kg.methods]
    if unknown:
        from kgtool.core.suggest import did_you_mean

        raise ConfigError(f"unknown method(s) {', '.join(unknown)}{did_you_mean(unknown[0], registered)}; "
                          f"registered: {', '.join(registered) or 'none'} (or 'all')")
    if not names:
        raise ConfigError(f"no method given; registered: {', '.join(registered) or 'none'} (or 'all')")
    return names


@contextlib.contextmanager
def perturbed(kg, spec, *, keep: bool = False) -> Iterator[dict | None]:
    """Create the perturbation `spec` describes (None: no perturbation) for the block; remove it afterwards
    unless `keep`. Yields the record that goes into the report (None without a perturbation)."""
    spec = PerturbSpec.parse(spec)
    if spec is None:
        yield None
        return
    made: Perturbation = create_perturbation(kg.db, spec)
    if not keep:  # found by `kgtool db doctor` if this evaluation dies before removing it
        kg.db.write("perturb/mark_temporary", id=made.id)
    record = {**made.as_dict(), "removed": False}
    try:
        yield record
    finally:
        if not keep:
            remove_perturbation(kg.db, made.id)
            record["removed"] = True


def add_llm_counters(kg, run) -> None:
    """Copy each question's Run counters (role fallbacks, unusable replies, re-asks) onto its result.

    `run` is a kgtool.eval.report.MethodRun; a question without a run (it raised before one was
    stored) keeps zeros.
    """
    ids = [r.run_id for r in run.results if r.run_id]
    if not ids:
        return
    counters = {row["run_id"]: row for row in kg.db.read("eval/run_llm_counters", run_ids=ids)}
    for result in run.results:
        row = counters.get(result.run_id)
        if row:
            result.role_fallbacks = int(row["role_fallbacks"])
            result.unusable_replies = int(row["unusable_replies"])
            result.reasks = int(row["reasks"])


@dataclass
class MethodAnswers:
    method: str
    answers: list[Answer]
    seconds: float


def answer_with_each(kg, questions: Sequence[str], scopes: Sequence, methods: Sequence[str], *, agents: str,
                     workers: int, perturbation: str | None = None,
                     progress: Progress | None = None) -> list[MethodAnswers]:
    """Every method answers every question (with its scope, seen through `perturbation`)."""
    seen = [Scope.parse(s).with_perturbation(perturbation) for s in scopes]
    total = len(questions) * len(methods)
    out = []
    for index, method in enumerate(methods):
        offset = index * len(questions)

        def tick(done: int, _n: int, method=method, offset=offset):
            if progress:
                progress(offset + done, total, method)

        t0 = time.perf_counter()
        answers = kg.answer_many(list(questions), workers=workers, method=method, agents=agents, scopes=seen,
                                 progress=tick)
        out.append(MethodAnswers(method, answers, time.perf_counter() - t0))
    return out
