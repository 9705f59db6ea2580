"""Supporting-passage recall@k of passage retrievers, next to a plain BM25 baseline of the same run.

The passages are the ones in the graph (ingest the corpus first with `kgtool
ingest docs`). Each question's gold passages come from its file:

- ``hotpotqa``: the titles named by ``supporting_facts``; a title's passages are
  the passages of the documents with that title;
- ``musique``: the ``paragraphs`` marked ``is_supporting``, matched to stored
  passages by their text (whitespace and case aside), else by title when the
  title names exactly one passage.

recall@k of a question = the share of its gold passages found in the top k
(HippoRAG's definition); the report gives the mean over questions. A gold
passage that is not in the graph counts as missed and is reported.

The baseline ranks every passage in the graph with rank-bm25's BM25Okapi over
kgtool's tokenizer (title and text), with no Cypher and no index: what the
papers call BM25. kgtool's retrievers are the presets of
kgtool.retrieve.passages (full-text, dense, hybrid, linked expansion,
cross-encoder where its model is installed); one whose model cannot be loaded
is listed as unavailable with the reason instead of failing the run.

For MuSiQue files the report also measures linking: the share of the
question decompositions' answers (one per hop) that became an Entity linked
to the hop's supporting passage (mentioned by it, or the entity its document
is about), and the extraction yield (facts per passage) of the graph.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
from rank_bm25 import BM25Okapi

from kgtool.core.scope import Scope
from kgtool.core.text import normalize, words
from kgtool.errors import ConfigError, InputError, KgToolError
from kgtool.retrieve.fact_seeds import facts_without_embedding
from kgtool.retrieve.passages import PRESETS, make_retriever

FORMATS = ("hotpotqa", "musique")
BASELINE = "bm25 (baseline)"
DEFAULT_K = (2, 5, 10)


@dataclass(frozen=True)
class GoldPassage:
    title: str
    text: str | None  # None: any passage of a document with this title


@dataclass
class RetrievalQuestion:
    id: str
    question: str
    gold: list[GoldPassage]
    # MuSiQue: (answer, the hop's supporting paragraph) per decomposition step
    hops: list[tuple[str, GoldPassage]] = field(default_factory=list)


# ------------------------------------------------------------------------------ reading


def read_questions(path: str | Path, format: str, *, limit: int | None = None) -> list[RetrievalQuestion]:
    """Questions with their gold passages; every bad record is listed in one InputError."""
    path = Path(path)
    if format not in FORMATS:
        raise ConfigError(f"unknown format {format!r} for retrieval evaluation; use one of {', '.join(FORMATS)}")
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno})") from None
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of {format} questions, got {type(data).__name__}")
    questions, bad = [], []
    for n, record in enumerate(data, start=1):
        try:
            read = _hotpotqa if format == "hotpotqa" else _musique
            questions.append(read(record, n))
        except _Bad as exc:
            bad.append(f"{path}:record {n}: {exc}")
    if bad:
        shown = "\n".join(f"  {b}" for b in bad[:50])
        more = f"\n  ... and {len(bad) - 50} more" if len(bad) > 50 else ""
        raise InputError(f"{len(bad)} bad question record(s) (is --format {format} right?):\n{shown}{more}")
    if not questions:
        raise InputError(f"{path}: no questions")
    return questions[:limit] if limit else questions


class _Bad(Exception):
    pass


def _need(record: Any, key: str, kind: type, what: str):
    if not isinstance(record, dict):
        raise _Bad(f"expected a JSON object, got {type(record).__name__}")
    value = record.get(key)
    if not isinstance(value, kind) or (isinstance(value, (str, list)) and not value):
        raise _Bad(f'"{key}" must be {what}')
    return value


def _hotpotqa(record: Any, n: int) -> RetrievalQuestion:
    question = _need(record, "question", str, "the question text")
    facts = _need(record, "supporting_facts", list, "a non-empty list of [title, sentence index] pairs")
    titles = []
    for fact in facts:
        if not isinstance(fact, list) or not fact or not isinstance(fact[0], str):
            raise _Bad('every "supporting_facts" entry must be [title, sentence index]')
        if fact[0] not in titles:
            titles.append(fact[0])
    qid = str(record.get("_id") or record.get("id") or n)
    return RetrievalQuestion(qid, question, [GoldPassage(" ".join(t.split()), None) for t in titles])


def _musique(record: Any, n: int) -> RetrievalQuestion:
    question = _need(record, "question", str, "the question text")
    paragraphs = _need(record, "paragraphs", list, "a non-empty list of paragraphs")
    by_idx, gold = {}, []
    for i, p in enumerate(paragraphs):
        if not isinstance(p, dict) or not isinstance(p.get("title"), str) or not isinstance(p.get("paragraph_text"), str):
            raise _Bad('every "paragraphs" entry needs "title" and "paragraph_text" strings')
        passage = GoldPassage(" ".join(p["title"].split()), p["paragraph_text"])
        by_idx[p.get("idx", i)] = passage
        if p.get("is_supporting"):
            gold.append(passage)
    if not gold:
        raise _Bad('no paragraph is marked "is_supporting"')
    hops = []
    for step in record.get("question_decomposition") or []:
        if isinstance(step, dict) and isinstance(step.get("answer"), str) and step.get("paragraph_support_idx") in by_idx:
            hops.append((step["answer"], by_idx[step["paragraph_support_idx"]]))
    return RetrievalQuestion(str(record.get("id") or n), question, gold, hops)


# ------------------------------------------------------------------------------ gold matching


def _norm_text(text: str) -> str:
    return " ".join(text.lower().split())


class GoldIndex:
    """Stored passages by normalised text and by title, to find each gold passage's ids."""

    def __init__(self, passages: Sequence[dict]):
        self.by_text: dict[str, list[str]] = {}
        self.by_title: dict[str, list[str]] = {}
        for p in passages:
            self.by_text.setdefault(_norm_text(p["text"] or ""), []).append(p["passage_id"])
            self.by_title.setdefault(_norm_text(p["title"] or ""), []).append(p["passage_id"])

    def ids(self, gold: GoldPassage) -> list[str]:
        titled = self.by_title.get(_norm_text(gold.title), [])
        if gold.text is None:
            return titled
        exact = self.by_text.get(_norm_text(gold.text), [])
        if exact:
            # the same paragraph text under two titles: keep the one with the gold title when there is one
            return [i for i in exact if i in titled] or exact
        return titled if len(titled) == 1 else []


# ------------------------------------------------------------------------------ retrievers


class BM25Baseline:
    """BM25Okapi over every stored passage (title and text): the plain baseline."""

    def __init__(self, passages: Sequence[dict]):
        self.ids = [p["passage_id"] for p in passages]
        self.bm25 = BM25Okapi([words(f"{p['title'] or ''} {p['text'] or ''}") or ["\x00"] for p in passages])

    def top(self, query: str, k: int) -> list[str]:
        terms = words(query)
        if not terms:
            return []
        scores = self.bm25.get_scores(terms)
        order = np.argsort(-scores, kind="stable")[:k]
        return [self.ids[i] for i in order]


@dataclass
class RetrieverResult:
    name: str
    recall: dict[int, float] = field(default_factory=dict)
    latency_ms_p50: float = 0.0
    per_question: list[dict] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0  # wall time of all its questions
    subgraph: dict | None = None  # graph-walk retrievers: mean passages / entities / edges walked per question

    def as_dict(self) -> dict:
        return {"recall": {f"@{k}": round(v, 4) for k, v in self.recall.items()},
                "latency_ms_p50": round(self.latency_ms_p50, 1), "seconds": round(self.seconds, 2),
                "subgraph": self.subgraph, "error": self.error, "per_question": self.per_question}


@dataclass
class RetrievalReport:
    path: str
    format: str
    k: tuple[int, ...]
    questions: int
    passages: int
    gold: int
    gold_missing: int
    results: dict[str, RetrieverResult]
    linking: dict | None = None
    seconds: float = 0.0
    # facts without a vector from the graph's embedder when a walk seeded by facts was evaluated: those
    # walks fall back to the question's names, so their figures are the old walk's (None: no such walk)
    facts_without_embedding: int | None = None

    @property
    def best(self) -> str | None:
        """kgtool's retriever with the highest recall at the middle k (5 by default)."""
        k = self.primary_k
        usable = [r for name, r in self.results.items() if name != BASELINE and r.error is None]
        return max(usable, key=lambda r: (r.recall[k], -r.latency_ms_p50)).name if usable else None

    @property
    def primary_k(self) -> int:
        return 5 if 5 in self.k else self.k[len(self.k) // 2]

    def as_dict(self) -> dict:
        best = self.best
        k = self.primary_k
        baseline = self.results[BASELINE].recall[k]
        return {
            "path": self.path, "format": self.format, "k": list(self.k), "questions": self.questions,
            "passages_in_graph": self.passages, "gold_passages": self.gold, "gold_missing": self.gold_missing,
            "baseline": BASELINE, "best": best, "primary_k": k,
            "best_minus_baseline": round(self.results[best].recall[k] - baseline, 4) if best else None,
            "retrievers": {name: r.as_dict() for name, r in self.results.items()},
            "linking": self.linking, "seconds": round(self.seconds, 2),
            "cost": {"passages_in_graph": self.passages, "seconds": round(self.seconds, 2),
                     "retrieval_seconds": {name: round(r.seconds, 2) for name, r in self.results.items()}},
            "facts_without_embedding": self.facts_without_embedding,
        }


def _parse_k(k: Any) -> tuple[int, ...]:
    values = k.split(",") if isinstance(k, str) else ([k] if isinstance(k, int) else list(k))
    try:
        out = sorted({int(v) for v in values})
    except (TypeError, ValueError):
        raise ConfigError(f"k must be positive integers such as 2,5,10; got {k!r}") from None
    if not out or out[0] < 1:
        raise ConfigError(f"k must be positive integers such as 2,5,10; got {k!r}")
    return tuple(out)


def _parse_retrievers(value: Any) -> list[str]:
    if value in (None, "all"):
        return list(PRESETS)
    names = [v.strip() for v in (value.split(",") if isinstance(value, str) else value) if v.strip()]
    unknown = [n for n in names if n not in PRESETS]
    if unknown or not names:
        raise ConfigError(f"unknown passage retriever(s) {unknown}; use some of {', '.join(PRESETS)} or all")
    return names


def evaluate_retrieval(kg, path: str | Path, *, format: str, k: Any = DEFAULT_K, retrievers: Any = None,
                       limit: int | None = None, pool_size: int = 50,
                       progress: Callable[[int, int, str], None] | None = None) -> RetrievalReport:
    """recall@k of each retriever and of the BM25 baseline over the passages in kg's graph."""
    t0 = time.perf_counter()
    ks = _parse_k(k)
    names = _parse_retrievers(retrievers)
    questions = read_questions(path, format, limit=limit)
    passages = kg.db.read("passages/all")
    if not passages:
        raise InputError("the graph holds no passages; ingest the corpus first: kgtool ingest docs CORPUS --format "
                         f"{format}")
    index = GoldIndex(passages)
    gold_ids = [[index.ids(g) for g in q.gold] for q in questions]
    gold_total = sum(len(g) for g in gold_ids)
    missing = sum(1 for g in gold_ids for ids in g if not ids)
    if missing == gold_total:
        raise InputError(f"none of the {gold_total} gold passages of {path} is in the graph; ingest its corpus "
                         f"first (kgtool ingest docs CORPUS --format {format})")
    depth = max(ks)

    runners: dict[str, Callable[[Any, str], list[str]]] = {}
    made: dict[str, Any] = {}
    results: dict[str, RetrieverResult] = {}
    baseline = BM25Baseline(passages)
    runners[BASELINE] = lambda session, query: baseline.top(query, depth)
    for name in names:
        try:
            retriever = make_retriever(kg.db, name, embedder=kg.embedder, registry=kg.scorers,
                                       pool_size=max(pool_size, depth))
        except KgToolError as exc:
            results[name] = RetrieverResult(name, {kk: 0.0 for kk in ks}, error=str(exc))
            continue
        made[name] = retriever
        runners[name] = (lambda r: lambda session, query: [h.passage_id for h in r.retrieve(session, query, Scope(),
                                                                                           depth)])(retriever)

    total = len(questions) * len(runners)
    done = 0
    with kg.db.session(read_only=True) as session:
        for name, run in runners.items():
            result = RetrieverResult(name)
            hits = {kk: [] for kk in ks}
            latencies = []
            walked: list[dict] = []
            try:
                for q, gold in zip(questions, gold_ids):
                    started = time.perf_counter()
                    ranked = run(session, q.question)
                    latencies.append((time.perf_counter() - started) * 1000)
                    if getattr(made.get(name), "last_walk", None):
                        walked.append(made[name].last_walk)
                    row = {"id": q.id, "top": ranked[:depth], "gold": [ids for ids in gold]}
                    for kk in ks:
                        top = set(ranked[:kk])
                        found = sum(1 for ids in gold if ids and top.intersection(ids))
                        value = found / len(gold)
                        hits[kk].append(value)
                        row[f"recall@{kk}"] = value
                    result.per_question.append(row)
                    done += 1
                    if progress:
                        progress(done, total, name)
            except KgToolError as exc:  # a model that cannot load (the cross-encoder without its weights)
                result = RetrieverResult(name, {kk: 0.0 for kk in ks}, error=str(exc))
                done += len(questions) - len(latencies)
                results[name] = result
                continue
            result.recall = {kk: float(np.mean(hits[kk])) for kk in ks}
            result.latency_ms_p50 = float(np.median(latencies)) if latencies else 0.0
            result.seconds = sum(latencies) / 1000
            if walked:
                result.subgraph = {key: round(float(np.mean([w[key] for w in walked])), 1) for key in walked[0]}
            results[name] = result
    ordered = {BASELINE: results.pop(BASELINE), **{n: results[n] for n in names}}
    linking = linking_report(kg, questions, index) if format == "musique" else None
    fact_walks = [r for r in made.values() if "walk" in r.pools and r.walk["seeds"] != "names"]
    unembedded = facts_without_embedding(kg.db, kg.embedder) if fact_walks else None
    return RetrievalReport(str(path), format, ks, len(questions), len(passages), gold_total, missing, ordered,
                           linking, time.perf_counter() - t0, unembedded)


def linking_report(kg, questions: Sequence[RetrievalQuestion], index: GoldIndex) -> dict:
    """Share of decomposition answers linked as an Entity to their hop's passage; facts per passage."""
    pairs = [(answer, index.ids(gold)) for q in questions for answer, gold in q.hops]
    wanted = sorted({pid for _, ids in pairs for pid in ids})
    names: dict[str, set[str]] = {}
    for row in kg.db.read("passages/linked_entities", ids=wanted):
        names[row["passage_id"]] = {normalize(n) for n in row["names"] if n}
    linked = sum(1 for answer, ids in pairs if ids and any(normalize(answer) in names.get(pid, ()) for pid in ids))
    found = sum(1 for _, ids in pairs if ids)
    yield_row = kg.db.read("docs/extraction_yield")[0]
    return {
        "hops": len(pairs), "hop_passages_in_graph": found, "answers_linked": linked,
        "answers_linked_share": round(linked / len(pairs), 4) if pairs else None,
        "document_passages": yield_row["passages"], "facts": yield_row["facts"],
        "facts_per_passage": round(yield_row["facts"] / yield_row["passages"], 3) if yield_row["passages"] else None,
    }
