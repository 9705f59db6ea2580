"""The trace recorder: reasoning state lives in Neo4j while a method runs.

Runs, steps of any kind, scored candidates (Facts or Passages, with every named
score, p and N_eff computed in Cypher), choices, verdicts in the method's
taxonomy, revisions of any kind and backtracks are written while a method runs,
and the methods read their state back (the current chain for a critic, the
next stored candidate on reselection) instead of keeping a private copy.
"""
from __future__ import annotations

import hashlib
import json
import os
import socket
import threading
import uuid
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Sequence

from kgtool.core.types import CandidateFact, Usage, Verdict
from kgtool.graph.db import Database, Stopped, retrying, statements_stopped
from kgtool.models.llm import take_prompt_trims
from kgtool.reason.taxonomy import check
from kgtool.reason.trace_sections import read_sections, sections_of_run
from kgtool.retrieve.hop import candidate_from_row

EPS = 1e-6
REVISION_KINDS = ("reselect", "fallback", "local_rollback", "global_rollback", "plan_revision")


# runs older than this that still say 'running' are reported as stale (`kgtool db doctor`)
STALE_AFTER_SECONDS = 3600
_started = threading.local()  # the run this thread opened last (answer_many names it on a failure)


def process_owner() -> str:
    """host:pid of this process, stored on the runs it opens (read at each call: a fork changes it)."""
    return f"{socket.gethostname()}:{os.getpid()}"


def last_run_id() -> str | None:
    """The id of the run the current thread opened last, or None."""
    return getattr(_started, "run_id", None)


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


def question_id(text: str) -> str:
    return "q-" + hashlib.sha1(" ".join(text.split()).casefold().encode("utf-8")).hexdigest()[:16]


@dataclass
class StepRecord:
    step_id: str
    neff: float | None
    state: str


def candidate_row(candidate: Any, *, score: float | None = None, passes: bool = True,
                  extra_scores: dict[str, float] | None = None) -> dict:
    """A Fact or Passage candidate as `hop/record_step` takes it.

    `score` is the value p and N_eff are computed from (default: the
    candidate's own ranking score); every named score the candidate carries
    is stored beside it.
    """
    scores = {k: float(v) for k, v in {**candidate.scores, **(extra_scores or {})}.items() if v is not None}
    return {"id": candidate.id, "kind": candidate.kind, "rank": candidate.rank,
            "score": float(candidate.score if score is None else score), "passes": bool(passes), "scores": scores}


# Statements that take their parameters as one map, $p (see their headers): the server keys a cached plan
# by each parameter's type and size bucket (0, 1, 10, 100 ... items or characters), and these carry lists
# and texts of every length: new plans all along a run, 0.1-1 s each on a busy machine (about half of a
# ReAgent answer's Cypher time over 10 questions); a map parameter has one plan.
PACKED = frozenset({"trace/record_verdict", "hop/revise_step", "hop/set_answer", "reagent/record",
                    "reagent/rollback"})


def packed(name: str, params: dict) -> dict:
    """The parameters as `name` takes them: one map `p` for the PACKED statements, as they are otherwise."""
    return {"p": params} if name in PACKED else params


class TraceRecorder:
    """Write and read one run's trace inside the answer's session."""

    def __init__(self, db: Database, session, taxonomy: type[StrEnum] | None = None):
        self.db = db
        self.session = session
        self.taxonomy = taxonomy
        self.run_id: str | None = None
        self.last_step_id: str | None = None
        self._deferred: list[tuple[str, dict]] = []
        # C2RAG reads none of its verdicts back while it runs (kgtool.reason.recorders.c2rag sets this)
        self.defer_verdicts = False

    def _run(self, name: str, **params) -> list[dict]:
        """Run a trace statement; the deferred writes go first, in the same transaction."""
        params = packed(name, params)
        if not self._deferred:
            return self.db.run_in(self.session, name, **params)
        return self._with_deferred((name, params))

    def defer(self, name: str, **params) -> None:
        """Queue a write that nothing reads back while the method runs (its ids are made here, not by
        the server): it is sent in the transaction of the trace's next statement, at the latest with
        the verdict that closes the run. A write's cost is mostly its commit, which waits for the
        transaction log on disk (measured: six small writes, 37 ms as six auto-commit statements,
        9 ms in one transaction)."""
        self._deferred.append((name, packed(name, params)))

    def flush(self) -> None:
        """Write what `defer` queued, now."""
        if self._deferred:
            self._with_deferred(None)

    def _with_deferred(self, last: tuple[str, dict] | None) -> list[dict]:
        """The deferred writes, then `last`, in one transaction; `last`'s rows."""
        statements = [*self._deferred, *([last] if last is not None else [])]

        def once():
            # a transient failure (a lock another answer held) rolled the whole transaction back:
            # running it again cannot write anything twice
            with self.session.begin_transaction() as tx:
                rows = [self.db.run_in(tx, name, **params) for name, params in statements]
                tx.commit()
            return rows

        out = retrying(once)
        self._deferred = []
        return out[-1] if last is not None else []

    def start_run(self, question: str, method: str, agents: str, scope, settings: dict, config: dict) -> str:
        if statements_stopped():  # interrupted: open nothing new that would only be closed again
            raise Stopped("stopped before the run opened: the command is being interrupted")
        params = self.run_params(question, method, agents, scope, settings, config)
        _started.run_id = self.run_id
        self._run("trace/start_run", **params)
        return self.run_id

    def run_params(self, question: str, method: str, agents: str, scope, settings: dict, config: dict) -> dict:
        """A new run id for this recorder and the `trace/start_run` parameters that open it."""
        self.run_id = new_id("run")
        return {"run_id": self.run_id, "question_id": question_id(question), "question": question, "method": method,
                "agents": agents, "scope": scope.label(), "perturbation": scope.perturbation,
                "settings": json.dumps(settings, default=str), "config": json.dumps(config, default=str),
                "owner": process_owner()}

    @staticmethod
    def step_row(*, hop: int, query: str, candidates: Sequence[dict], gamma: float, kind: str = "hop",
                 attempt: int = 0, entity_id: str | None = None, entity: str = "", prev_step_id: str | None = None,
                 chosen: Any = None, answer_id: str | None = None, answer: str | None = None,
                 generated: bool = False) -> dict:
        """One step as `hop/record_step` takes it, with a new step id (`row["id"]`).

        `candidates` are `candidate_row` maps; `chosen` is the chosen Fact or
        Passage candidate, or None.
        """
        return {
            "id": new_id("step"), "kind": kind, "hop": hop, "attempt": attempt, "query": query,
            "entity_id": entity_id, "entity": entity, "gamma": gamma, "prev_step_id": prev_step_id,
            "candidates": list(candidates), "chosen_id": chosen.id if chosen is not None else None,
            "chosen_kind": chosen.kind if chosen is not None else None, "answer_id": answer_id, "answer": answer,
            "generated": generated,
        }

    def record_steps(self, rows: list[dict]) -> list[StepRecord]:
        """Write consecutive steps in one statement; N_eff and state come back per step, in order."""
        return self.record_steps_and_chain(rows, None)[0]

    def record_steps_and_chain(self, rows: list[dict],
                               chain_step_ids: list[str] | None) -> tuple[list[StepRecord], list[dict]]:
        """`record_steps`, then the chain `chain_step_ids` read back as `chain` returns it, in one statement.

        The chain is read from the database after the steps are written (it
        may name them), so a loop that records hops and then judges the chain
        spends one round trip where it spent two.
        """
        if not rows:
            return [], (self.chain(chain_step_ids) if chain_step_ids else [])
        trims = take_prompt_trims()  # LLM prompts shortened to fit the context since the last steps
        if trims:
            rows = [{**rows[0], "prompt_trims": [json.dumps(t) for t in trims]}, *rows[1:]]
        self.last_step_id = rows[-1]["id"]
        out = self._run("hop/record_step", run_id=self.run_id, steps=rows, eps=EPS, chain_step_ids=chain_step_ids)
        chain = out[0]["chain"] if out else []
        return [StepRecord(r["step_id"], r["neff"], r["state"]) for r in out], chain

    def revise(self, *, old_step_id: str, from_step_id: str, prev_step_id: str | None, kind: str,
               reason: str) -> str:
        """Open a revision of a step (its pool carried over, its choice discarded)."""
        if kind not in REVISION_KINDS:
            raise ValueError(f"revision kind {kind!r} is not one of {REVISION_KINDS}")
        new_step_id = new_id("step")
        self._run("hop/revise_step", old_step_id=old_step_id, new_step_id=new_step_id, from_step_id=from_step_id,
                  prev_step_id=prev_step_id, kind=kind, reason=reason[:500])
        return new_step_id

    def next_candidate(self, step_id: str) -> CandidateFact | None:
        rows = self._run("hop/next_candidate", step_id=step_id)
        return candidate_from_row(rows[0]) if rows else None

    def set_answer(self, step_id: str, *, chosen: Any, answer_id: str | None, answer: str | None,
                   generated: bool) -> None:
        self._run("hop/set_answer", step_id=step_id, chosen_fact_id=chosen.id if chosen is not None else None,
                  answer_id=answer_id, answer=answer, generated=generated)

    def chain(self, step_ids: list[str]) -> list[dict]:
        return self._run("trace/chain", step_ids=step_ids)

    def verdict(self, step_id: str | None, verdict: Verdict, round_: int, finish: dict | None = None) -> str:
        """Record a verdict in the method's taxonomy; `finish` (see `finish_fields`) also closes the run."""
        if finish is not None:
            self._store_late_trims()
        verdict_id = new_id("verdict")
        params = dict(run_id=self.run_id, verdict_id=verdict_id, step_id=step_id, valid=verdict.valid,
                      taxonomy=self.taxonomy.__name__ if self.taxonomy else None,
                      error_type=check(self.taxonomy, verdict.error_type), failed_hop=verdict.failed_hop,
                      explanation=verdict.explanation, guidance=verdict.guidance or None, round=round_,
                      finish=finish)
        if finish is None and self.defer_verdicts:
            self.defer("trace/record_verdict", **params)
        else:
            self._run("trace/record_verdict", **params)
        return verdict_id

    def finish(self, finish: dict) -> None:
        """Close the run without a verdict."""
        self._store_late_trims()
        self._run("trace/finish_run", run_id=self.run_id, finish=finish)

    def _store_late_trims(self) -> None:
        """Prompts trimmed after the last step was written go on that step when the run closes."""
        trims = take_prompt_trims()
        if trims and self.last_step_id:
            self._run("trace/add_prompt_trims", step_id=self.last_step_id, trims=[json.dumps(t) for t in trims])

    @staticmethod
    def finish_fields(*, answer: str | None, answer_id: str | None, status: str, latency_ms: float, load_ms: float,
                      usage: Usage, backtracks: int, chain_step_ids: list[str], error: str | None = None,
                      reason: str | None = None) -> dict:
        """The Run's closing properties; `reason` says why the status is not `answered` (kgtool.reason.status)."""
        return {"answer": answer, "answer_id": answer_id, "status": status, "reason": reason, "error": error,
                "latency_ms": latency_ms, "load_ms": load_ms, "tokens": usage.tokens,
                "prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
                "llm_calls": usage.calls, "llm_structured_calls": usage.structured_calls,
                "llm_unusable_replies": usage.unusable_replies, "llm_reasks": usage.reasks,
                "llm_unparseable_replies": usage.unparseable_replies,
                "llm_format_fallbacks": usage.format_fallbacks, "llm_role_fallbacks": usage.role_fallbacks,
                "llm_trimmed_prompts": usage.trimmed_prompts,
                "backtracks": backtracks, "chain_step_ids": chain_step_ids}


def interrupt_open_runs(db: Database, reason: str) -> int:
    """Close every run this process still has open as 'interrupted' with `reason`; how many."""
    rows = db.write("trace/interrupt_runs", owner=process_owner(), error=reason)
    return int(rows[0]["interrupted"]) if rows else 0


def stale_runs(db: Database, older_than: float = STALE_AFTER_SECONDS, limit: int = 1000) -> list[dict]:
    """Runs still 'running' that started more than `older_than` seconds ago, oldest first."""
    return db.read("trace/stale_runs", older_than=int(older_than), limit=int(limit))


def abandon_stale_runs(db: Database, older_than: float = STALE_AFTER_SECONDS) -> int:
    """Close the stale runs (see stale_runs) as 'abandoned'; how many."""
    rows = db.write("trace/abandon_stale", older_than=int(older_than),
                    error=f"still 'running' more than {int(older_than)} s after it started: its process was "
                          "killed or stopped answering; closed by `kgtool db doctor --fix`")
    return int(rows[0]["abandoned"]) if rows else 0


def load_trace(db: Database, run_id: str, methods=None) -> dict | None:
    """A run as a plain dict (the shape `trace_html.render_trace_html` takes): its steps and backtracks, and
    the rows of each section its method declares (kgtool.reason.trace_sections) under the section's key;
    `methods` is the Registry to find the method in (None: the built-in one)."""
    rows = db.read("trace/show_run", run_id=run_id)
    if not rows:
        return None
    run, steps = rows[0]["run"], rows[0]["steps"]
    backtracks = []
    for step in steps:
        # best first, as the step ranked them (a revision keeps the ranks of its pool)
        step["candidates"] = sorted(step["candidates"], key=lambda c: (c["rank"] or 0))
        for cand in step["candidates"]:
            cand["scores"] = {k: v for k, v in (cand["scores"] or {}).items()
                              if k not in ("rank", "score", "p", "passes", "discarded")}
        for link in step.pop("backtrack_to") or []:
            backtracks.append({"from_step": step["id"], "to_step": link["to_step"], "kind": link["kind"],
                               "reason": link["reason"]})
        for verdict in step["verdicts"]:
            verdict.setdefault("failed_hop", None)
    steps.sort(key=lambda s: (s["hop"], s["attempt"]))
    sections = read_sections(db, run_id, sections_of_run(run, methods))
    return {"run": run, "steps": steps, "backtracks": backtracks, **sections}
