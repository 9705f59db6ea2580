"""What VoG's roles exchange, the roles' interfaces, and the NLI check both families may add.

VoG (../shared/papers/vog.txt) has a plan agent, a retrieve agent, a verify
agent and the plan agent again as reviser. The offline family
(kgtool.reason.agents.offline.vog) and the LLM family
(kgtool.reason.agents.llm_vog) implement these interfaces; the loop
(kgtool.reason.methods.vog) sees only them, and both write the same trace.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from kgtool.core.text import relation_key
from kgtool.core.types import PLACEHOLDER, CandidateFact, ChainLink
from kgtool.errors import ConfigError, require


@dataclass
class PlanStep:
    """One step of a reasoning plan: thought, action and predicted observation (Definition 2).

    `action` is the sub-question the step searches the graph for; after the
    first step it names the previous step's entity as `[ENT]`. `relation`
    (and `direction`, "out"/"in") is the relation the step expects to follow,
    when the planner names one; `expected` is the predicted observation, the
    entity the step expects to reach, or None when the planner leaves it open.
    """

    thought: str
    action: str
    relation: str | None = None
    direction: str | None = None
    expected: str | None = None

    def as_dict(self) -> dict:
        return {"thought": self.thought, "action": self.action, "relation": self.relation,
                "direction": self.direction, "expected": self.expected}

    def query(self, entity: str) -> str:
        return self.action.replace(PLACEHOLDER, entity) if entity else self.action


@dataclass
class VogPlan:
    """A whole reasoning plan S = [s_1 .. s_T] and the answer it predicts (Finish[...])."""

    steps: list[PlanStep]
    topic: str | None = None
    topic_id: str | None = None
    answer: str | None = None

    def final_answer(self) -> str | None:
        """The answer the plan predicts: its Finish, else the last step's predicted observation."""
        if self.answer:
            return self.answer
        return self.steps[-1].expected if self.steps else None

    def copy(self) -> VogPlan:
        return VogPlan([replace(s) for s in self.steps], self.topic, self.topic_id, self.answer)

    def as_dict(self) -> dict:
        return {"topic": self.topic, "answer": self.answer, "steps": [s.as_dict() for s in self.steps]}


@dataclass
class RelationOption:
    """One candidate relation (and direction) of the current entity, with the facts that carry it."""

    key: str
    label: str
    direction: str
    facts: list[CandidateFact]
    score: float = 0.0

    def scored_facts(self) -> list[CandidateFact]:
        """Copies of the option's facts carrying its relation score (entity scoring starts from it)."""
        out = []
        for fact in self.facts:
            fact = fact.copy()
            fact.scores["relation"] = float(self.score)
            out.append(fact)
        return out


def fact_key(fact: CandidateFact) -> str:
    return relation_key(fact.relation, fact.relation_id)


def relation_options(pool: Sequence[CandidateFact]) -> list[RelationOption]:
    """The distinct (relation, direction) groups of a pool, in pool order; self-loops lead nowhere."""
    groups: dict[tuple[str, str], RelationOption] = {}
    for fact in pool:
        if fact.head_id == fact.tail_id:
            continue
        group = (fact_key(fact), fact.direction)
        if group not in groups:
            groups[group] = RelationOption(group[0], fact.relation, fact.direction, [])
        groups[group].facts.append(fact)
    return list(groups.values())


@dataclass
class Observation:
    """O_t: what one step retrieved (relations scored and cut to the adaptive width, entities scored)."""

    entity_id: str | None
    entity: str
    relations: list[RelationOption]  # every candidate relation, best first
    width: int  # k from the relation scores' entropy
    entropy: float  # H_norm of the relation scores
    selected: list[RelationOption]  # what the retrieve agent kept of the top k
    candidates: list[CandidateFact]  # the top entity candidates, best first (rank, score, scores set)
    chosen: CandidateFact | None = None

    def triples(self, limit: int | None = None) -> list[tuple[str, str, str]]:
        facts = self.candidates if limit is None else self.candidates[:limit]
        return [(c.head, c.relation, c.tail) for c in facts]

    def end(self, fact: CandidateFact) -> tuple[str, str]:
        """(id, name) of the entity a candidate leads to from this step's entity."""
        return fact.answer_from(self.entity_id or "")


@dataclass
class Check:
    """A verification of one step against its KG feedback: the revision signal V (Eq. 1) and a confidence."""

    consistent: bool
    confidence: float  # 0..1: how sure the verifier is that the step is consistent with the graph
    error_type: str | None = None  # a VogError value when inconsistent
    reason: str = ""
    revised_observation: str | None = None  # what the verifier says the observation should be
    checks: dict[str, float] = field(default_factory=dict)  # named check scores, stored with the verdict
    repeated: bool = False  # E_rep: the step reached an entity the chain had already visited


@dataclass
class RevisionContext:
    """What a reviser sees; the arm decides which parts it may use (Section 3.4.1).

    local: the failing step's feedback O_t; lookahead: O_t and the relations
    R_{t+1} reachable from its candidate entities; global: the whole plan and
    every feedback so far, O_{1:t}, read back from the run.
    """

    arm: str
    question: str
    plan: VogPlan
    index: int  # the failing step, 0-based
    check: Check
    observation: Observation
    lookahead: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)  # entity id -> (key, label, dir)
    feedback: list[dict] = field(default_factory=list)  # O_{1:t}: {hop, head, relation, tail, evidence, fact_id}
    rejected: set[str] = field(default_factory=set)  # fact ids earlier checks found wrong


class VogPlanner(Protocol):
    def plan(self, question: str) -> VogPlan: ...


class VogRetriever(Protocol):
    """The retrieve agent: scores and keeps relations, then scores and picks entities (Section 3.2)."""

    def score_relations(self, question: str, step: PlanStep, query: str, entity: str,
                        options: Sequence[RelationOption]) -> list[float]: ...

    def select_relations(self, question: str, step: PlanStep, query: str, entity: str,
                         options: Sequence[RelationOption]) -> list[RelationOption]: ...

    def score_entities(self, question: str, step: PlanStep, query: str, entity: str,
                       facts: Sequence[CandidateFact]) -> list[float]: ...

    def select_entity(self, question: str, step: PlanStep, query: str, entity: str,
                      candidates: Sequence[CandidateFact]) -> CandidateFact | None: ...


class VogVerifier(Protocol):
    def verify(self, question: str, plan: VogPlan, index: int, link: ChainLink | None, observation: Observation,
               visited: Sequence[str]) -> Check: ...


class VogReviser(Protocol):
    def revise(self, context: RevisionContext) -> VogPlan: ...


def step_statement(step: PlanStep, entity: str, observation: str | None) -> str:
    """The step as a claim a verifier can test: its question and the answer it predicts."""
    claim = step.query(entity)
    return f"{claim} {observation}" if observation else claim


# ------------------------------------------------------------------------ NLI


class NliCheck:
    """A secondary verifier (the paper's DeBERTa-MNLI check): does the evidence contradict the claim?

    Any local sequence-classification model whose labels name contradiction,
    neutral and entailment works. It loads on first use (never from a hub at
    run time: give a directory or a model already in the local cache).
    """

    def __init__(self, model: str | Path):
        self.model_name = str(model)
        self._lock = threading.Lock()
        self._model: Any = None
        self._tokenizer: Any = None
        self._labels: dict[str, int] = {}

    def _load(self) -> None:
        if self._model is not None:
            return
        with self._lock:
            if self._model is not None:
                return
            transformers = require("transformers", "offline", "the NLI check of VoG")
            require("torch", "offline", "the NLI check of VoG")
            try:
                tokenizer = transformers.AutoTokenizer.from_pretrained(self.model_name)
                model = transformers.AutoModelForSequenceClassification.from_pretrained(self.model_name)
            except (OSError, ValueError) as exc:
                raise ConfigError(f"the NLI model {self.model_name!r} could not be loaded ({exc}); give a local "
                                  "model directory in the method setting nli_model, or leave it empty") from exc
            model.eval()
            labels = {str(v).lower(): int(k) for k, v in model.config.id2label.items()}
            found = {}
            for want in ("contradiction", "entailment"):
                match = [i for name, i in labels.items() if name.startswith(want[:6])]
                if not match:
                    raise ConfigError(f"the NLI model {self.model_name!r} has labels {sorted(labels)}; it needs "
                                      "contradiction and entailment labels")
                found[want] = match[0]
            self._tokenizer, self._labels, self._model = tokenizer, found, model

    def probabilities(self, premise: str, hypothesis: str) -> dict[str, float]:
        """{"contradiction": p, "entailment": p} for the pair."""
        self._load()
        import torch

        with torch.no_grad():
            batch = self._tokenizer(premise, hypothesis, return_tensors="pt", truncation=True, max_length=256)
            probs = torch.softmax(self._model(**batch).logits[0], dim=-1).tolist()
        return {name: float(probs[i]) for name, i in self._labels.items()}


_NLI: dict[str, NliCheck] = {}
_NLI_LOCK = threading.Lock()


def nli_check(model: str | None) -> NliCheck | None:
    """One shared NliCheck per model name (None when no model is configured)."""
    if not model:
        return None
    with _NLI_LOCK:
        if model not in _NLI:
            _NLI[model] = NliCheck(model)
        return _NLI[model]
