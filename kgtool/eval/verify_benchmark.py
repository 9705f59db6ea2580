"""SAFE's train-time filter: keep the benchmark questions whose answer the stored graph can reach.

A question is verifiable when a continuous chain of facts in force joins one
of its entities (linked in the question text) to one of its gold answers
(linked by name or alias) within the hop limit (../shared/papers/safe.txt,
3.2, "Validation"). The others are noise for a grounded method: the topic is
not in the graph, the answer is not, or nothing joins them. The verifiable
questions are written in kgtool's QA format (JSON lines, read back with
`--format jsonl`) together with a summary of what was removed and why.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from kgtool.errors import ConfigError, InputError
from kgtool.eval.qa_data import QAItem, read_qa

MAX_HOPS_LIMIT = 6  # the longest chain cypher/safe/benchmark_paths searches
REASONS = ("verifiable", "no_question_entity", "answer_not_in_graph", "no_path")


@dataclass
class QuestionCheck:
    id: str
    question: str
    verifiable: bool
    reason: str  # one of REASONS
    hops: int | None = None
    path: list[str] = field(default_factory=list)  # names along the chain found
    question_entities: list[str] = field(default_factory=list)
    answer_entities: list[str] = field(default_factory=list)


@dataclass
class VerifySummary:
    path: str
    format: str
    max_hops: int
    total: int
    verifiable: int
    out: str
    summary: str
    reasons: dict[str, int]
    notes: list[str]
    checks: list[QuestionCheck]

    @property
    def removed(self) -> int:
        return self.total - self.verifiable

    @property
    def share_removed(self) -> float:
        return self.removed / self.total if self.total else 0.0

    def as_dict(self) -> dict:
        return {"path": self.path, "format": self.format, "max_hops": self.max_hops, "total": self.total,
                "verifiable": self.verifiable, "removed": self.removed, "share_removed": self.share_removed,
                "reasons": self.reasons, "out": self.out, "summary": self.summary, "notes": self.notes,
                "questions": [asdict(c) for c in self.checks]}


def verify_benchmark(kg, path: str | Path, *, format: str | None = None, max_hops: int = 4,
                     out: str | Path | None = None, summary: str | Path | None = None, limit: int | None = None,
                     batch_size: int = 200) -> VerifySummary:
    """Check every question of a QA file against the stored graph; write the verifiable ones and a summary.

    `out` defaults to `<file stem>.verified.jsonl` and `summary` to
    `<file stem>.verify.json`, both in the current directory (benchmark files
    often sit in read-only folders).
    """
    if not 1 <= int(max_hops) <= MAX_HOPS_LIMIT:
        raise ConfigError(f"max_hops must be from 1 to {MAX_HOPS_LIMIT}, not {max_hops}")
    data = read_qa(path, format, limit=limit)
    stem = Path(path).name.split(".")[0]
    out_path = Path(out) if out else Path.cwd() / f"{stem}.verified.jsonl"
    summary_path = Path(summary) if summary else Path.cwd() / f"{stem}.verify.json"
    if out_path.resolve() == Path(path).resolve():
        raise InputError(f"--out {out_path} would overwrite the benchmark file; write the subset elsewhere")
    catalog = kg.catalog
    checks: list[QuestionCheck] = []
    pending: list[tuple[QuestionCheck, list[str], list[str]]] = []
    for item in data.items:
        sources = list(dict.fromkeys(m[2] for m in catalog.link_mentions(item.question)))
        targets = list(dict.fromkeys(t for t in (catalog.link(a) for a in item.answers if a) if t))
        check = QuestionCheck(item.id, item.question, False, "no_path",
                              question_entities=[catalog.entity_name(s) or s for s in sources],
                              answer_entities=[catalog.entity_name(t) or t for t in targets])
        checks.append(check)
        if not sources:
            check.reason = "no_question_entity"
        elif not targets:
            check.reason = "answer_not_in_graph"
        else:
            pending.append((check, sources, targets))
    for start in range(0, len(pending), batch_size):
        chunk = pending[start:start + batch_size]
        items = [{"key": str(i), "sources": s, "targets": t} for i, (_, s, t) in enumerate(chunk)]
        for row in kg.db.read("safe/benchmark_paths", items=items, max_hops=int(max_hops)):
            check = chunk[int(row["key"])][0]
            if row["hops"] is not None:
                check.verifiable, check.reason, check.hops, check.path = True, "verifiable", row["hops"], row["path"]
    kept = [item for item, check in zip(data.items, checks) if check.verifiable]
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text("".join(json.dumps(_record(item), ensure_ascii=False) + "\n" for item in kept),
                        encoding="utf-8")
    result = VerifySummary(str(path), data.format, int(max_hops), len(checks), len(kept), str(out_path),
                           str(summary_path), dict(Counter(c.reason for c in checks)), list(data.notes), checks)
    summary_path.parent.mkdir(parents=True, exist_ok=True)
    summary_path.write_text(json.dumps(result.as_dict(), indent=2, ensure_ascii=False), encoding="utf-8")
    return result


def _record(item: QAItem) -> dict:
    """A question in kgtool's QA format (kgtool/eval/qa_data.py, format jsonl)."""
    record: dict = {"id": item.id, "question": item.question, "answers": list(item.answers)}
    if item.hops is not None:
        record["hops"] = item.hops
    if item.hop_answers:
        record["hop_answers"] = [list(h) for h in item.hop_answers]
    return record
