"""Perturbed views of the graph: some facts in force hidden, plausible wrong facts added.

C2RAG's robustness study degrades the KG with incomplete information (facts
removed) and spurious noise (wrong facts injected). Here both are a *view*:
a (:Perturbation) node HIDES a seeded fraction of the facts in force and ADDS
distractor facts, and only answers whose scope names the perturbation see it
(kgtool/cypher/hop/candidates.cypher). The stored facts are never changed, any
number of perturbations can coexist, and removing one restores everything.

- drop: the fraction of facts in force (status 'active', i.e. in force with
  every edit applied) that are hidden.
- distract: as many distractors as this fraction of the facts in force. Each
  copies a fact in force (h, r, t) to (h, r, t'), where t' is another entity
  that is the tail of r somewhere in the graph, superseded facts included (so a
  pre-edit answer can come back as a distractor), never a triple in force; its
  evidence is the copied fact's sentence with t's name replaced by t'.
- seed: the same seed on the same graph draws the same perturbation.

Facts in force only in a narrower edit scope (a base fact superseded by an
edit outside that scope) are never hidden.
"""
from __future__ import annotations

import random
import re
import uuid
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any, Mapping

from kgtool.errors import ConfigError, InputError


@dataclass(frozen=True)
class PerturbSpec:
    drop: float = 0.0
    distract: float = 0.0
    seed: int = 0

    def __post_init__(self):
        for name in ("drop", "distract"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ConfigError(f"perturbation {name} must be a fraction between 0 and 1, got {value!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ConfigError(f"perturbation seed must be an integer, got {self.seed!r}")

    @classmethod
    def parse(cls, value: Any) -> "PerturbSpec | None":
        """None, a PerturbSpec, a mapping, or text such as "drop=0.1,distract=0.1,seed=1"."""
        if value is None or isinstance(value, PerturbSpec):
            return value
        if isinstance(value, Mapping):
            unknown = set(value) - {"drop", "distract", "seed"}
            if unknown:
                raise ConfigError(f"unknown perturbation setting(s) {sorted(unknown)}; use drop, distract, seed")
            return cls(**value)
        if not isinstance(value, str):
            raise ConfigError(f"a perturbation is 'drop=F,distract=F,seed=N', got {value!r}")
        fields: dict[str, Any] = {}
        for part in filter(None, (p.strip() for p in value.split(","))):
            key, sep, raw = part.partition("=")
            key = key.strip()
            if not sep or key not in ("drop", "distract", "seed"):
                raise ConfigError(f"perturbation {part!r}: expected drop=F, distract=F or seed=N "
                                  "(e.g. drop=0.1,distract=0.1,seed=1)")
            try:
                fields[key] = int(raw) if key == "seed" else float(raw)
            except ValueError:
                raise ConfigError(f"perturbation {part!r}: {raw.strip()!r} is not a number") from None
        return cls(**fields)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Perturbation:
    """A stored perturbation: its id, its spec and what it did."""

    id: str
    spec: PerturbSpec
    hidden: int
    added: int

    def as_dict(self) -> dict:
        return {"id": self.id, **self.spec.as_dict(), "hidden": self.hidden, "added": self.added}


def plan_perturbation(facts: list[dict], spec: PerturbSpec, perturbation_id: str) -> tuple[list[str], list[dict]]:
    """The fact ids to hide and the distractor rows to add (pure and deterministic).

    `facts` are rows of perturb/facts (every stored fact, `in_force` set on those
    active with every edit applied).
    """
    facts = sorted(facts, key=lambda f: f["fact_id"])  # the draw must not depend on read order
    rng = random.Random(spec.seed)
    in_force = [f for f in facts if f["in_force"]]
    hidden = sorted(f["fact_id"] for f in rng.sample(in_force, round(spec.drop * len(in_force))))

    tails: dict[str, dict[str, str]] = defaultdict(dict)  # relation key -> tail id -> name
    for f in facts:
        tails[f["relation_key"]][f["tail_id"]] = f["tail"]
    # a distractor must be wrong: never a triple in force (a superseded one, the pre-edit
    # answer, is wrong after the edit and the most plausible distractor of all)
    existing = {(f["head_id"], f["relation_key"], f["tail_id"]) for f in in_force}
    wanted = round(spec.distract * len(in_force))
    order = list(range(len(in_force)))
    rng.shuffle(order)
    rows: list[dict] = []
    for i in order:
        if len(rows) >= wanted:
            break
        f = in_force[i]
        options = sorted(t for t in tails[f["relation_key"]]
                         if t != f["head_id"] and (f["head_id"], f["relation_key"], t) not in existing)
        if not options:
            continue  # nothing else is ever the tail of this relation: no plausible wrong fact
        wrong = rng.choice(options)
        existing.add((f["head_id"], f["relation_key"], wrong))
        rows.append({
            "id": f"{perturbation_id}:d{len(rows) + 1}", "head_id": f["head_id"], "tail_id": wrong,
            "relation": f["relation"], "relation_key": f["relation_key"], "relation_id": f["relation_id"],
            "evidence": wrong_sentence(f, tails[f["relation_key"]][wrong]), "imitates": f["fact_id"],
        })
    return hidden, rows


def wrong_sentence(fact: dict, wrong_tail: str) -> str:
    """The fact's evidence with its tail's name replaced by `wrong_tail` (a sentence stating the wrong fact)."""
    evidence, tail = fact.get("evidence") or "", fact.get("tail") or ""
    if tail and re.search(re.escape(tail), evidence, flags=re.IGNORECASE):
        return re.sub(re.escape(tail), lambda _: wrong_tail, evidence, flags=re.IGNORECASE)
    return f"The {fact['relation']} of {fact['head']} is {wrong_tail}."


def create_perturbation(db, spec: PerturbSpec) -> Perturbation:
    """Draw a perturbation from the current graph and store it in one transaction."""
    pid = f"pert-{uuid.uuid4().hex[:12]}"
    hidden, rows = plan_perturbation(db.read("perturb/facts"), spec, pid)
    db.write_many([
        ("perturb/create", {"id": pid, "drop": float(spec.drop), "distract": float(spec.distract),
                            "seed": spec.seed, "hidden": len(hidden), "added": len(rows)}),
        ("perturb/hide_facts", {"id": pid, "fact_ids": hidden}),
        ("perturb/add_distractors", {"id": pid, "rows": rows}),
    ])
    return Perturbation(pid, spec, len(hidden), len(rows))


def remove_perturbation(db, perturbation_id: str) -> int:
    """Delete a perturbation's distractors and the perturbation; returns the distractors removed."""
    rows = db.write("perturb/remove", id=perturbation_id)
    if not rows:
        raise InputError(f"no perturbation {perturbation_id!r} in the graph; list them with: "
                         "kgtool cypher -f cypher/analyst/perturbations.cypher")
    return rows[0]["removed"]
