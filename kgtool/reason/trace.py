"""The trace writer: reasoning state lives in Neo4j while a loop runs.

Runs, steps, scored candidates (with p and N_eff computed in Cypher), choices,
verdicts, revisions and backtracks are written while a loop runs, and the loops
read their state back (the current chain for the critic, the next stored
candidate on reselection) instead of keeping a private copy.
"""
from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass

from kgtool.graph.db import Database
from kgtool.reason.agents.base import CandidateFact, Judgement, Verdict
from kgtool.retrieve.hop import candidate_from_row

EPS = 1e-6


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


def question_id(text: str) -> str:
    return "q-" + hashlib.sha1(" ".join(text.split()).casefold().encode("utf-8")).hexdigest()[:16]


@dataclass
class StepRecord:
    step_id: str
    neff: float | None
    state: str


class TraceWriter:
    """Write and read one run's trace inside the caller's session."""

    def __init__(self, db: Database, session):
        self.db = db
        self.session = session

    def _write(self, name: str, **params) -> list[dict]:
        return self.db.run_in(self.session, name, **params)

    def _read(self, name: str, **params) -> list[dict]:
        return self.db.run_in(self.session, name, **params)

    def start_run(self, question: str, method: str, agents: str, scope: str, settings: dict) -> str:
        run_id = new_id("run")
        self._write("trace/start_run", run_id=run_id, question_id=question_id(question), question=question,
                    method=method, agents=agents, scope=scope, settings=json.dumps(settings, default=str))
        return run_id

    def record_step(self, run_id: str, *, hop: int, attempt: int, query: str, entity_id: str | None, entity: str,
                    gamma: float, prev_step_id: str | None, candidates: list[CandidateFact],
                    judgements: list[Judgement], chosen: CandidateFact | None, answer_id: str | None,
                    answer: str | None, generated: bool) -> StepRecord:
        """Write one hop now (one statement); see `step_row` and `record_steps` for several."""
        row = self.step_row(hop=hop, attempt=attempt, query=query, entity_id=entity_id, entity=entity, gamma=gamma,
                            prev_step_id=prev_step_id, candidates=candidates, judgements=judgements, chosen=chosen,
                            answer_id=answer_id, answer=answer, generated=generated)
        return self.record_steps(run_id, [row])[0]

    @staticmethod
    def step_row(*, hop: int, attempt: int, query: str, entity_id: str | None, entity: str, gamma: float,
                 prev_step_id: str | None, candidates: list[CandidateFact], judgements: list[Judgement],
                 chosen: CandidateFact | None, answer_id: str | None, answer: str | None, generated: bool) -> dict:
        """One hop as `hop/record_step` takes it, with a new step id (`row["id"]`)."""
        return {
            "id": new_id("step"), "hop": hop, "attempt": attempt, "query": query, "entity_id": entity_id,
            "entity": entity, "gamma": gamma, "prev_step_id": prev_step_id,
            "candidates": [
                {"fact_id": cand.fact_id, "rank": cand.rank, "score": float(judgement.score),
                 "bm25": cand.scores.get("bm25"), "relation_sim": cand.scores.get("relation"),
                 "selector": float(judgement.score), "passes": bool(judgement.passes)}
                for cand, judgement in zip(candidates, judgements)
            ],
            "chosen_fact_id": chosen.fact_id if chosen else None, "answer_id": answer_id, "answer": answer,
            "generated": generated,
        }

    def record_steps(self, run_id: str, rows: list[dict]) -> list[StepRecord]:
        """Write consecutive hops in one statement; N_eff and state come back per step, in order."""
        if not rows:
            return []
        out = self._write("hop/record_step", run_id=run_id, steps=rows, eps=EPS)
        return [StepRecord(r["step_id"], r["neff"], r["state"]) for r in out]

    def revise(self, *, old_step_id: str, from_step_id: str, prev_step_id: str | None, reason: str) -> str:
        new_step_id = new_id("step")
        self._write("hop/revise_step", old_step_id=old_step_id, new_step_id=new_step_id,
                    from_step_id=from_step_id, prev_step_id=prev_step_id, reason=reason)
        return new_step_id

    def next_candidate(self, step_id: str) -> CandidateFact | None:
        rows = self._read("hop/next_candidate", step_id=step_id)
        return candidate_from_row(rows[0]) if rows else None

    def set_answer(self, step_id: str, *, chosen: CandidateFact | None, answer_id: str | None,
                   answer: str | None, generated: bool) -> None:
        self._write("hop/set_answer", step_id=step_id, chosen_fact_id=chosen.fact_id if chosen else None,
                    answer_id=answer_id, answer=answer, generated=generated)

    def chain(self, step_ids: list[str]) -> list[dict]:
        return self._read("trace/chain", step_ids=step_ids)

    def verdict(self, run_id: str, step_id: str | None, verdict: Verdict, round_: int,
                finish: dict | None = None) -> str:
        """Record a critic verdict; `finish` (see `finish_fields`) also closes the run."""
        verdict_id = new_id("verdict")
        self._write("trace/record_verdict", run_id=run_id, verdict_id=verdict_id, step_id=step_id,
                    valid=verdict.valid, error_type=verdict.error_type, failed_hop=verdict.failed_hop,
                    explanation=verdict.explanation, round=round_, finish=finish)
        return verdict_id

    @staticmethod
    def finish_fields(*, answer: str | None, answer_id: str | None, status: str, latency_ms: float, usage,
                      backtracks: int, chain_step_ids: list[str]) -> dict:
        return {"answer": answer, "answer_id": answer_id, "status": status, "latency_ms": latency_ms,
                "tokens": usage.tokens, "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens, "llm_calls": usage.calls, "backtracks": backtracks,
                "chain_step_ids": chain_step_ids}


def load_trace(db: Database, run_id: str) -> dict | None:
    """A run as a plain dict (the shape `trace_html.render_trace_html` takes)."""
    rows = db.read("trace/show_run", run_id=run_id)
    if not rows:
        return None
    run, steps = rows[0]["run"], rows[0]["steps"]
    backtracks = []
    for step in steps:
        step["candidates"] = sorted(step["candidates"], key=lambda c: (c["rank"] or 0))
        for link in step.pop("backtrack_to") or []:
            backtracks.append({"from_step": step["id"], "to_step": link["to_step"], "reason": link["reason"]})
        for verdict in step["verdicts"]:
            verdict.setdefault("failed_hop", None)
    steps.sort(key=lambda s: (s["hop"], s["attempt"]))
    return {"run": run, "steps": steps, "backtracks": backtracks}
