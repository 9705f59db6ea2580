"""What a killed or interrupted command can leave behind, found and mended (`kgtool db doctor`).

- runs still 'running' long after they started (their process was killed with
  SIGKILL, or hangs): `stale`; the fix closes them as 'abandoned';
- passages without an embedding (a document ingest killed between writing the
  passages and embedding them: dense retrieval cannot see them); the fix embeds
  them with the graph's embedder, as a re-run of the ingest would;
- in a document store, facts without an embedding (the graph walk's fact seeds
  cannot reach them: left by `ingest docs --facts later`, loaded by a kgtool that
  did not embed them, or an ingest killed while embedding); the fix embeds them,
  and the relation labels still without one;
- perturbations an evaluation made for itself and did not remove (it was
  interrupted), that no open run uses; the fix removes them;
- ingests that started and never finished (an `(:Ingest)` marker without
  finished_at: the client or the server was killed mid-ingest, or it failed):
  the store holds part of a file. No fix here: re-running the same ingest
  finishes it (every ingest write is an idempotent MERGE), so `--fix` leaves
  them and the check still fails.

`check` only reads; `repair` writes, in that order (stale runs first, so a
perturbation only they still used counts as left over).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kgtool.reason.trace import STALE_AFTER_SECONDS  # noqa: F401  (the default, re-exported)


@dataclass
class Health:
    stale_after: float
    stale_runs: list[dict] = field(default_factory=list)
    passages_without_embedding: int = 0
    passage_sample: list[str] = field(default_factory=list)
    facts_without_embedding: int = 0
    leftover_perturbations: list[dict] = field(default_factory=list)
    relations_without_embedding: int = 0  # any store (relations_without_embedding below)
    unfinished_ingests: list[dict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.stale_runs or self.passages_without_embedding or self.facts_without_embedding
                    or self.leftover_perturbations or self.relations_without_embedding
                    or self.unfinished_ingests)

    @property
    def mendable(self) -> bool:
        """Whether `repair` can mend something found (an unfinished ingest it cannot: re-run it)."""
        return bool(self.stale_runs or self.passages_without_embedding or self.facts_without_embedding
                    or self.leftover_perturbations or self.relations_without_embedding)

    def problems(self) -> list[str]:
        """One line per kind of problem, saying what it means; [] when all is well."""
        out = []
        if self.stale_runs:
            out.append(f"{len(self.stale_runs)} run(s) still 'running' more than {self.stale_after:g} s after they "
                       "started (their process was killed or hangs)")
        if self.passages_without_embedding:
            out.append(f"{self.passages_without_embedding} passage(s) without an embedding (an ingest stopped "
                       "before embedding them; dense retrieval cannot find them)")
        if self.facts_without_embedding:
            out.append(f"{self.facts_without_embedding} fact(s) without an embedding in a document store (the "
                       "graph walk's fact seeds cannot reach them; it seeds from the names it links until "
                       "`kgtool db doctor --fix` embeds them)")
        if self.relations_without_embedding:
            out.append(relations_problem(self.relations_without_embedding))
        if self.leftover_perturbations:
            out.append(f"{len(self.leftover_perturbations)} perturbation(s) an interrupted evaluation left behind "
                       f"({', '.join(p['id'] for p in self.leftover_perturbations[:5])})")
        out += [unfinished_message(ingest) for ingest in self.unfinished_ingests]
        return out

    def as_dict(self) -> dict:
        return {"ok": self.ok, "stale_after_s": self.stale_after, "stale_runs": self.stale_runs,
                "passages_without_embedding": self.passages_without_embedding,
                "passage_sample": self.passage_sample, "facts_without_embedding": self.facts_without_embedding,
                "leftover_perturbations": self.leftover_perturbations,
                "relations_without_embedding": self.relations_without_embedding,
                "unfinished_ingests": self.unfinished_ingests, "problems": self.problems()}


@dataclass
class Repair:
    runs_abandoned: int = 0
    passages_embedded: int = 0
    facts_embedded: int = 0
    relations_embedded: int = 0
    perturbations_removed: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"runs_abandoned": self.runs_abandoned, "passages_embedded": self.passages_embedded,
                "facts_embedded": self.facts_embedded, "relations_embedded": self.relations_embedded,
                "perturbations_removed": self.perturbations_removed}


def check(db, *, stale_after: float = STALE_AFTER_SECONDS, sample: int = 5) -> Health:
    """Read what needs mending; writes nothing."""
    from kgtool.reason.trace import stale_runs

    health = Health(stale_after=float(stale_after))
    health.stale_runs = stale_runs(db, stale_after)
    row = db.read("health/passages_without_embedding", limit=int(sample))[0]
    health.passages_without_embedding, health.passage_sample = int(row["n"]), list(row["sample"])
    health.facts_without_embedding = int(db.read("health/facts_without_embedding")[0]["n"])
    health.leftover_perturbations = db.read("health/leftover_perturbations")
    health.relations_without_embedding = relations_without_embedding(db)
    health.unfinished_ingests = unfinished_ingests(db)
    return health


def repair(kg, *, stale_after: float = STALE_AFTER_SECONDS, progress=None) -> Repair:
    """Mend what `check` finds: close stale runs, embed passages and facts, remove leftover perturbations."""
    from kgtool.eval.perturb import remove_perturbation
    from kgtool.reason.trace import abandon_stale_runs
    from kgtool.ingest.docs import embed_pending
    from kgtool.retrieve.passages import embed_passages

    done = Repair()
    done.runs_abandoned = abandon_stale_runs(kg.db, stale_after)
    if kg.db.read("health/passages_without_embedding", limit=0)[0]["n"]:
        done.passages_embedded = embed_passages(kg.db, kg.embedder, progress=progress)
    if kg.db.read("health/facts_without_embedding")[0]["n"]:
        # relation labels too: an ingest that left its facts for later (`--facts later`) left them as well
        done.relations_embedded, done.facts_embedded = embed_pending(kg.db, kg.embedder, kg.embedder,
                                                                     progress=progress)
    done.relations_embedded += embed_missing_relations(kg)
    for leftover in kg.db.read("health/leftover_perturbations"):
        remove_perturbation(kg.db, leftover["id"])
        done.perturbations_removed.append(leftover["id"])
    return done


def unfinished_ingests(db) -> list[dict]:
    """Ingests that started and never finished (an `(:Ingest)` marker without `finished_at`), oldest first:
    each a dict of id, kind, source, started_at. The status rule and `db doctor` name them."""
    return db.read("health/unfinished_ingests")


def unfinished_message(ingest: dict) -> str:
    """How an answer, `db stats` and `db doctor` name an unfinished ingest."""
    return f"ingest of {ingest.get('source') or ingest.get('id')} did not finish: re-run it"


def relations_without_embedding(db) -> int:
    """Relation labels of any store (fact, edit or document) without an embedding: an ingest that stopped, or
    met a full disk, after writing its facts and before embedding their relations left them."""
    return int(db.read("health/relations_without_embedding")[0]["n"])


def relations_problem(n: int) -> str:
    return (f"{n} relation label(s) without an embedding (an ingest stopped before embedding them; the "
            "offline agents match them by their words only)")


def embed_missing_relations(kg) -> int:
    """Embed the relation labels `relations_without_embedding` counts, with the graph's embedder; how many."""
    from kgtool.ingest.load import write_relation_embeddings

    return write_relation_embeddings(kg.db, kg.embedder) if relations_without_embedding(kg.db) else 0


def unfinished_command(ingest: dict) -> str:
    """The command that finishes an unfinished ingest (the same ingest of the same file)."""
    import shlex

    return f"kgtool ingest {ingest.get('kind') or 'facts'} {shlex.quote(ingest.get('source') or '')}"
