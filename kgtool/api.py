"""The public Python API.

    from kgtool import KnowledgeGraph
    kg = KnowledgeGraph.connect()
    kg.init_schema()
    kg.ingest_edits("edits.jsonl")
    result = kg.answer("Who is the spouse of the founder of X?")
"""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from kgtool.config import Settings
from kgtool.core.scope import Scope
from kgtool.core.types import Answer
from kgtool.graph import queries
from kgtool.graph.db import Database
from kgtool.reason.method_registry import DEFAULT_METHOD
from kgtool.services import GraphServices


def local_server(settings: Settings | None = None):
    """The local Neo4j server kgtool manages (start, stop, status, logs, plugins).

    Refused when NEO4J_URI names another server: kgtool does not manage that one.
    """
    from kgtool.errors import KgToolError
    from kgtool.graph.server import LocalServer

    settings = settings or Settings.load()
    if not settings.uses_local_server:
        raise KgToolError(f"NEO4J_URI is set ({settings.neo4j_uri}): kgtool does not manage that server. "
                          "Unset NEO4J_URI to use the local one.")
    return LocalServer(settings)


class KnowledgeGraph(GraphServices):
    """One connection to the graph, plus the models the methods need (loaded lazily: GraphServices)."""

    def __init__(self, db: Database, settings: Settings):
        super().__init__(db, settings)
        self._scopes_checked: set = set()  # scopes whose cases and batches were found in the graph

    @classmethod
    def connect(cls, settings: Settings | None = None, **overrides) -> "KnowledgeGraph":
        settings = settings or Settings.load(**overrides)
        return cls(Database.connect(settings), settings)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "KnowledgeGraph":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- schema and inspection --------------------------------------------
    def init_schema(self) -> int:
        return self.db.apply_schema()

    def stats(self) -> dict[str, dict[str, int]]:
        labels = {r["label"]: r["count"] for r in self.db.read("stats_labels")}
        rels = {r["type"]: r["count"] for r in self.db.read("stats_relationships")}
        return {"nodes": labels, "relationships": rels}

    def health(self, *, stale_after: float | None = None):
        """What killed or interrupted commands left behind (read only): runs still 'running' after
        `stale_after` seconds (default kgtool.reason.trace.STALE_AFTER_SECONDS), passages without an
        embedding, perturbations an evaluation did not remove. Returns a kgtool.health.Health."""
        from kgtool.health import STALE_AFTER_SECONDS, check

        return check(self.db, stale_after=STALE_AFTER_SECONDS if stale_after is None else stale_after)

    def repair(self, *, stale_after: float | None = None, progress=None):
        """Mend what `health` finds (stale runs closed as 'abandoned', passages embedded, leftover
        perturbations removed); returns a kgtool.health.Repair."""
        from kgtool.health import STALE_AFTER_SECONDS, repair

        result = repair(self, stale_after=STALE_AFTER_SECONDS if stale_after is None else stale_after,
                        progress=progress)
        self.reset_caches()
        return result

    def stale_runs(self, older_than: float | None = None) -> list[dict]:
        """Runs still 'running' that started more than `older_than` seconds ago (default
        kgtool.reason.trace.STALE_AFTER_SECONDS), oldest first: id, method, question, owner, started_at, age_s."""
        from kgtool.reason.trace import STALE_AFTER_SECONDS, stale_runs

        return stale_runs(self.db, STALE_AFTER_SECONDS if older_than is None else older_than)

    def query(self, cypher: str, params: dict[str, Any] | None = None) -> tuple[list[str], list[dict]]:
        """Run an analyst's read-only Cypher; writes are refused."""
        return self.db.query_read_only(cypher, params)

    def query_file(self, path: str | Path, params: dict[str, Any] | None = None):
        return self.query(queries.load_file(path).text, params)

    # --- ingestion ------------------------------------------------------------
    def ingest_edits(self, path: str | Path, *, format: str | None = None, extractor: str = "anchor",
                     eatr: bool = True, strict: bool = False, batch: str | None = None, batch_size: int = 2000,
                     embed_relations: bool = True, progress=None, conflicts: str = "latest", bulk: bool = False,
                     phase=None, fact_progress=None):
        """Load an edit corpus (MQuAKE JSON or JSONL); returns an IngestSummary.

        bulk: load into an EMPTY local store with Neo4j's offline importer (the server is stopped
        and restarted; see kgtool.ingest.bulk); phase(name) hears which bulk step is running.

        conflicts: what an edit that sets a (subject, relation) slot another edit set to a
        different object does: "latest" (default; the later edit wins, the earlier one is
        marked superseded-by-conflict, so the slot has one active object), "keep-all"
        (both stay in force, flagged) or "fail" (refuse the file, write nothing).
        """
        self._check_ingest_space(path)
        if bulk:
            from kgtool.ingest.bulk import ingest_edits_bulk

            return self._bulk(lambda: ingest_edits_bulk(
                self.settings, path, format=format, extractor=extractor, eatr=eatr, batch=batch,
                batch_size=batch_size, embedder=self.embedder if embed_relations else None, progress=progress,
                phase=phase, conflicts=conflicts))
        from kgtool.ingest.pipeline import ingest_edits

        return self._marked_ingest("edits", path, fact_progress, lambda marker: ingest_edits(
            self.db, path, format=format, extractor=extractor, eatr=eatr, strict=strict, batch=batch,
            batch_size=batch_size, delta_rel=self.settings.delta_rel,
            embedder=self.embedder if embed_relations else None, settings=self.settings, progress=progress,
            conflicts=conflicts, marker=marker,
        ))

    def _marked_ingest(self, kind: str, path, fact_progress, ingest):
        """Run `ingest(marker)` under the file's (:Ingest) marker (kgtool.ingest.marker), which the ingest
        starts before its first write; finished only once the facts for the walk are embedded too."""
        from kgtool.ingest.marker import IngestMarker

        marker = IngestMarker(self.db, kind, path)
        summary = self._counting_new(lambda: ingest(marker))
        self.reset_caches()
        summary = self._embed_facts_for_walk(summary, fact_progress)
        marker.finish()
        return summary

    def _embed_facts_for_walk(self, summary, fact_progress):
        """In a store whose facts the graph walk reads (a document store) the new facts get their vectors
        now, not at the next document ingest; fact_progress(done, total) hears it (kgtool.retrieve.fact_seeds)."""
        from kgtool.retrieve.fact_seeds import embed_facts, store_walks_facts

        if store_walks_facts(self.db):
            summary.facts_embedded = embed_facts(self.db, self.embedder, progress=fact_progress)
        return summary

    def _check_ingest_space(self, path) -> None:
        """Refuse an ingest into the local store before it starts when its disk lacks the room the input
        may take there (a full disk mid-ingest panics the database: kgtool.graph.panic)."""
        if self.settings.uses_local_server:
            from kgtool.graph.server import check_ingest_space

            check_ingest_space(self.settings, path)

    def _counting_new(self, ingest):
        """Run an ingest and set `summary.new`: how many edits, facts, documents and passages it added
        (the rest of what it wrote was already present, as on a re-run)."""
        before = self.db.read("ingest/node_counts")[0]
        summary = ingest()
        after = self.db.read("ingest/node_counts")[0]
        summary.new = {key: max(0, after[key] - before[key]) for key in after}
        return summary

    def ingest_facts(self, path: str | Path, *, format: str | None = None, strict: bool = False,
                     batch_size: int = 5000, embed_relations: bool = True, progress=None, bulk: bool = False,
                     phase=None, fact_progress=None):
        """Load a plain knowledge graph (TSV head/relation/tail[/evidence], JSONL or N-Triples) as
        base facts stated by the file; returns a FactsIngestSummary (see kgtool.ingest.facts).
        bulk: into an EMPTY local store with Neo4j's offline importer, as for ingest_edits.

        Re-ingesting a file changes no counts; delete(source=path) removes what only it stated.
        """
        self._check_ingest_space(path)
        if bulk:
            from kgtool.ingest.bulk import ingest_facts_bulk

            return self._bulk(lambda: ingest_facts_bulk(
                self.settings, path, format=format, batch_size=batch_size,
                embedder=self.embedder if embed_relations else None, progress=progress, phase=phase))
        from kgtool.ingest.facts import ingest_facts

        return self._marked_ingest("facts", path, fact_progress, lambda marker: ingest_facts(
            self.db, path, format=format, strict=strict, batch_size=batch_size,
            embedder=self.embedder if embed_relations else None, progress=progress, marker=marker))

    def _bulk(self, load):
        """Run a bulk load, which stops and restarts the server, on a fresh connection afterwards."""
        self.db.close()
        try:
            return load()
        finally:
            # the old driver's connections died with the server; the linking keys came with the import
            self.db = Database.connect(self.settings)
            self._catalog = None

    def delete(self, *, edit=None, batch=None, document=None, source=None, dry_run: bool = False):
        """Delete edits (ids), batches, documents (ids) or source files (paths), each a name or a list,
        with every fact only they support; facts a deleted edit superseded are in force again and
        conflict verdicts are re-applied. A fact or passage a stored run used is kept, marked
        'retracted'. dry_run reports the same without writing. Returns a DeleteReport.
        """
        from kgtool.ingest.delete import delete

        report = delete(self.db, edit=edit, batch=batch, document=document, source=source, dry_run=dry_run)
        if not dry_run:
            # names and relations changed; no alias was added, and the entity count the
            # linker checks its name keys against drops when entities go
            self._catalog = None
            self._scopes_checked = set()
        return report

    def ingest_docs(self, path: str | Path, *, format: str | None = None, extractor="mentions",
                    strict: bool = False, batch_size: int = 500, embed_relations: bool = True,
                    embed_passages: bool = True, progress=None, embed_progress=None, fact_progress=None,
                    on_duplicate: str | None = None, facts: str = "now"):
        """Load a document collection (hotpotqa, musique, 2wiki, jsonl or text) as Documents and
        Passages with the triples extracted from them; returns a DocIngestSummary.

        extractor: mentions (default, no model), rebel, llm, or an object with extract_batch.
        embed_passages: store each passage's embedding (the graph's embedder) for dense retrieval, and each
        fact's, for the graph walk's fact seeds (progress of the latter: fact_progress(done, total)).
        on_duplicate: merge, error or skip, for records naming a document already read with other text
        (None: merge for the title formats, error for jsonl; see kgtool.ingest.docs).
        facts: now, or later (passages searchable first; facts and relation labels left for repair(),
        `kgtool db doctor --fix`; the walk seeds from names until then).
        Re-ingesting a file changes no counts (see kgtool.ingest.docs).
        """
        from kgtool.ingest.docs import ingest_docs

        self._check_ingest_space(path)
        summary = self._counting_new(lambda: ingest_docs(
            self.db, path, format=format, extractor=extractor, strict=strict, batch_size=batch_size,
            embedder=self.embedder if embed_relations else None,
            passage_embedder=self.embedder if embed_passages else None,
            settings=self.settings, progress=progress, embed_progress=embed_progress, fact_progress=fact_progress,
            on_duplicate=on_duplicate, facts=facts))
        self.reset_caches()
        return summary

    # --- entity resolution ---------------------------------------------------------
    def resolve(self, resolver: str = "exact", *, min_score: float | None = None, dry_run: bool = False,
                focus=None, record_near_misses: bool = False, **settings):
        """Merge entities that are one thing (kgtool.resolve); returns a ResolveReport.

        resolver: exact, fuzzy, embedding or id (the id resolver always runs first) or none;
        min_score: the named resolver's threshold; focus: None (every pair), entity ids, or
        "unchecked" (what ingests wrote since the last such pass). Each merge is recorded as
        an (:EntityMerge) node that `merges`, `explain_merge` and `undo_merge` read.
        """
        from kgtool.resolve.store import resolve

        if resolver == "embedding" and "embedder" not in settings:
            settings["embedder"] = self.embedder
        report = resolve(self.db, resolver, min_score=min_score, dry_run=dry_run, focus=focus,
                         record_near_misses=record_near_misses, **settings)
        if report.merges and not dry_run:
            self.reset_caches()
        return report

    def undo_merge(self, merge_id: str) -> dict:
        """Undo one entity merge exactly (kgtool.resolve.store.undo)."""
        from kgtool.resolve.store import undo

        result = undo(self.db, merge_id)
        self.reset_caches()
        return result

    def merges(self, resolver: str | None = None, limit: int = 1000, ingest: str | None = None) -> list[dict]:
        """The entity merges in the graph, newest first; `ingest`: of one pass (its id or the ingested file);
        undo several, suggestions and accepting them: kgtool.resolve.review."""
        from kgtool.resolve.store import list_merges

        return list_merges(self.db, resolver, limit, ingest=ingest)

    def explain_merge(self, merge_id: str) -> dict:
        """One merge's record, its survivor, and the moved facts with their sources."""
        from kgtool.resolve.store import explain

        return explain(self.db, merge_id)

    # --- answering --------------------------------------------------------------
    def default_agents(self) -> str:
        """`llm` when an endpoint is configured, else `offline`."""
        return "llm" if (self.settings.llm_base_url or self.settings.llm_api_key) else "offline"

    def answer(self, question: str, *, method: str = DEFAULT_METHOD, agents: str | None = None, scope=None,
               min_confidence: float | None = None, **method_config) -> Answer:
        """Answer a multi-hop question with a registered method; the whole reasoning path is stored as a Run.

        method: a name from `kg.methods` (see `kgtool methods NAME`); method_config: that method's
        settings (e.g. tau_max=1 for care), defaulting to its paper's values (a global setting fills
        one only where the method maps it).
        agents: "offline" or "llm" (default: llm when an endpoint is configured).
        scope: "all" (default: every edit in force), a list of case ids, or
        {"cases": [...], "batches": [...], "perturbation": id}; a case or batch no edit has is an error.
        min_confidence: an answer whose confidence (0-1) is below it comes back `no_answer`, its guess kept.
        Returns a kgtool.core.types.Answer: the answer (None for `no_answer`; `guess` then holds the
        method's), status (answered / unverified / no_answer) and why, confidence, the chain (facts with
        evidence), run id, latency (load time apart), tokens, backtracks.
        """
        scope = Scope.parse(scope)
        self.check_scope(scope)
        if min_confidence is not None and not 0.0 <= float(min_confidence) <= 1.0:
            from kgtool.errors import InputError

            raise InputError(f"min_confidence is a confidence in 0..1, got {min_confidence}")
        return self._answer(question, method=method, agents=agents, scope=scope, min_confidence=min_confidence,
                            **method_config)

    def _answer(self, question: str, *, method: str, agents: str | None, scope, min_confidence: float | None = None,
                **method_config) -> Answer:
        from kgtool.interrupt import closing_runs_on_signals
        from kgtool.reason.runner import run_method

        with closing_runs_on_signals(self.db):
            return run_method(self, question, method=method, agents=agents or self.default_agents(),
                              scope=Scope.parse(scope), config=method_config, min_confidence=min_confidence)

    def check_scope(self, scope) -> None:
        """Raise InputError when a scope names a case or batch no stored edit has, naming some that exist.

        Without the check such a scope silently answers from the pre-edit facts alone.
        """
        scope = Scope.parse(scope)
        key = (scope.cases, scope.batches)
        if (scope.cases is None and scope.batches is None) or key in self._scopes_checked:
            return
        row = self.db.read("scope/known", **{k: v for k, v in scope.params().items() if k != "perturbation"})[0]
        missing_cases = [c for c in scope.cases or () if c not in set(row["cases"])]
        missing_batches = [b for b in scope.batches or () if b not in set(row["batches"])]
        if missing_cases or missing_batches:
            from kgtool.errors import InputError

            known = self.db.read("scope/examples", limit=5)[0]
            parts = []
            for kind, missing, some, count in (("case", missing_cases, known["cases"], known["case_count"]),
                                               ("batch", missing_batches, known["batches"], known["batch_count"])):
                if missing:
                    have = (f"the graph has {count} {kind}{'s' if count != 1 else ''}"
                            + (f", e.g. {', '.join(map(str, some))}" if some else "")) if count else \
                        f"the graph has no edits with a {kind}"
                    parts.append(f"no edit of {kind} {', '.join(missing)} is in the graph ({have})")
            raise InputError("; ".join(parts) + "; ingest them first or fix --scope (`kgtool cypher -f "
                                                "cypher/analyst/sources.cypher` lists what is stored)")
        self._scopes_checked.add(key)

    def answer_many(self, questions, *, workers: int = 4, method: str = DEFAULT_METHOD, agents: str | None = None,
                    scope=None, scopes=None, progress=None, **method_config) -> list[Answer]:
        """Answer many questions in parallel: one driver, one session per worker.

        `scopes`, when given, is one scope per question (for k-edited evaluation; a case without
        edits then just answers from the base facts); a single `scope` is checked like answer's.
        Results come back in the order of `questions`. A question whose answer
        raises does not stop the others: it comes back as an Answer with status
        'failed' and the error (its Run, if one opened, is closed as failed).
        Ctrl-C or SIGTERM stop every worker and close the open runs as 'interrupted'
        (kgtool.interrupt) before the KeyboardInterrupt / SystemExit goes on.
        """
        from concurrent.futures import ThreadPoolExecutor, wait

        from kgtool.graph.db import stop_statements
        from kgtool.interrupt import closing_runs_on_signals

        questions = list(questions)
        if scopes is None:
            self.check_scope(scope)
        scopes = list(scopes) if scopes is not None else [scope] * len(questions)
        kind = agents or self.default_agents()
        self.prepare(kind)  # load shared models once, before the threads start
        lock, done = threading.Lock(), [0]

        def one(q, sc):
            try:
                result = self._answer(q, method=method, agents=kind, scope=sc, **method_config)
            except Exception as exc:  # noqa: BLE001 - one question's failure is that question's result
                result = failed_answer(q, method, kind, exc)
            with lock:  # workers finish concurrently
                done[0] += 1
                if progress:
                    progress(done[0], len(questions))
            return result

        with closing_runs_on_signals(self.db):
            pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="kgtool-answer")
            futures = [pool.submit(one, q, sc) for q, sc in zip(questions, scopes)]
            try:
                return [f.result() for f in futures]
            except BaseException:
                stop_statements()  # the running answers end at their next statement
                pool.shutdown(wait=False, cancel_futures=True)
                wait([f for f in futures if not f.cancelled()])  # a cancelled future never counts as done
                raise
            finally:
                pool.shutdown(wait=True)

    # --- evaluation ---------------------------------------------------------------
    def evaluate_mquake(self, path, *, methods=None, scope: str = "all", k: int = 100, agents: str | None = None,
                        workers: int = 4, limit: int | None = None, perturb=None, keep_perturbation: bool = False,
                        progress=None):
        """MQuAKE Acc / Hop-Acc (per case), EM / F1 and cost, every method side by side.

        methods: names, "m1,m2" or "all"/None (every registered method); scope: "1", "k" (groups
        of k cases) or "all"; perturb: None, "drop=F,distract=F,seed=N" or a mapping: answer on a
        perturbed view, removed afterwards unless keep_perturbation. progress(done, total, method).
        Returns a kgtool.eval.report.EvalReport (`.as_dict()` is the JSON report).
        """
        from kgtool.eval.mquake import evaluate_mquake
        from kgtool.interrupt import closing_runs_on_signals

        with closing_runs_on_signals(self.db):
            return evaluate_mquake(self, path, scope=scope, k=k, methods=methods, agents=agents, workers=workers,
                                   limit=limit, perturb=perturb, keep_perturbation=keep_perturbation,
                                   progress=progress)

    def evaluate_qa(self, path, *, format: str | None = None, methods=None, agents: str | None = None,
                    workers: int = 4, limit: int | None = None, perturb=None, keep_perturbation: bool = False,
                    progress=None):
        """EM, F1, Acc (= EM), Hop-Acc where the data has gold hops, and cost on a multi-hop QA file.

        format: jsonl, hotpotqa, musique, 2wiki or pathquestion (default: from the extension);
        the other options as for evaluate_mquake. Every edit is in force.
        Returns a kgtool.eval.report.EvalReport.
        """
        from kgtool.eval.qa import evaluate_qa
        from kgtool.interrupt import closing_runs_on_signals

        with closing_runs_on_signals(self.db):
            return evaluate_qa(self, path, format=format, methods=methods, agents=agents, workers=workers,
                               limit=limit, perturb=perturb, keep_perturbation=keep_perturbation, progress=progress)

    def verify_benchmark(self, path, *, format: str | None = None, max_hops: int = 4, out=None, summary=None,
                         limit: int | None = None):
        """SAFE's train-time filter: which questions of a QA file have a chain of facts in force from a
        question entity to a gold answer within max_hops (ingest the benchmark's corpus first).

        Writes the verifiable questions (kgtool QA JSON lines) to `out` and a summary (share removed, the
        reason per question) to `summary`; returns a kgtool.eval.verify_benchmark.VerifySummary.
        """
        from kgtool.eval.verify_benchmark import verify_benchmark

        return verify_benchmark(self, path, format=format, max_hops=max_hops, out=out, summary=summary, limit=limit)

    def evaluate_retrieval(self, path, *, format: str, k=(2, 5, 10), retrievers=None, limit: int | None = None,
                           progress=None):
        """Supporting-passage recall@k of passage retrievers and of a plain BM25 baseline, in one run.

        format: hotpotqa or musique (the question file; its corpus must be ingested with ingest_docs);
        k: ints or "2,5,10"; retrievers: preset names of kgtool.retrieve.passages.PRESETS, "a,b"
        or None/"all". progress(done, total, retriever). Returns a kgtool.eval.retrieval.RetrievalReport.
        """
        from kgtool.eval.retrieval import evaluate_retrieval

        return evaluate_retrieval(self, path, format=format, k=k, retrievers=retrievers, limit=limit,
                                  progress=progress)

    def perturb(self, *, drop: float = 0.0, distract: float = 0.0, seed: int = 0) -> str:
        """Store a perturbed view of the graph and return its id; the stored facts are not changed.

        A seeded `drop` fraction of the facts in force is hidden and `distract` times as many
        plausible wrong facts are added (see kgtool.eval.perturb). Answer on it with
        scope={"perturbation": id} (or Scope(...).with_perturbation(id)); undo with remove_perturbation.
        """
        from kgtool.eval.perturb import PerturbSpec, create_perturbation

        return create_perturbation(self.db, PerturbSpec(drop, distract, seed)).id

    def remove_perturbation(self, perturbation_id: str) -> int:
        """Delete a perturbation's distractors and the perturbation; returns how many distractors went."""
        from kgtool.eval.perturb import remove_perturbation

        return remove_perturbation(self.db, perturbation_id)

    def trace(self, run_id: str) -> dict | None:
        """A stored run as a dict: the run, its steps with candidates, verdicts and backtracks."""
        from kgtool.reason.trace import load_trace

        return load_trace(self.db, run_id, self.methods)

    def runs(self, *, method: str | None = None, status: str | None = None, limit: int = 20) -> list[dict]:
        """Stored runs, newest first: run_id, started_at, method, agents, status, latency_ms, question, answer.

        method / status: only runs of that method / with that status (None: any).
        """
        if method is not None and method not in self.methods:
            from kgtool.core.suggest import did_you_mean
            from kgtool.errors import ConfigError

            raise ConfigError(f"unknown method {method!r}{did_you_mean(method, self.methods.names())}; "
                              f"registered: {', '.join(self.methods.names())}")
        return self.db.read("trace/list_runs", method=method, status=status, limit=int(limit))

    def clear(self) -> None:
        """Delete every node and relationship (the schema stays)."""
        self.db.run_autocommit("admin/clear_graph")
        self.reset_caches()

    def reset_caches(self) -> None:
        """Forget what was derived from the graph's contents (names, relations, checked scopes)."""
        self._catalog = None
        self._scopes_checked = set()
        from kgtool.ingest.graph_linker import GraphLinker

        GraphLinker.forget(self.db)  # new aliases leave the entity count alone: re-check every entity's name keys

def failed_answer(question: str, method: str, agents: str, exc: BaseException) -> Answer:
    """The Answer of a question whose answering raised: status 'failed', the error as a person reads it,
    and the run the answer had opened (closed as failed by the runner), if any."""
    from kgtool.errors import describe
    from kgtool.reason.trace import last_run_id

    return Answer(question, None, None, [], last_run_id(), method, agents, "failed", 0.0,
                  error=str(describe(exc)))
