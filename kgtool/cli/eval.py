"""`kgtool eval ...` and `kgtool verify-benchmark`: methods side by side on benchmarks."""
from __future__ import annotations

import click

from kgtool.cli.app import Choice, agent_choice, connect
from kgtool.cli.present import console, print_notice, write_json
from kgtool.cli.present.reports import print_eval, print_retrieval, print_verified, run_with_progress
from kgtool.core import formats
from kgtool.errors import KgToolError


@click.group("eval")
def eval_():
    """Evaluate methods side by side on benchmarks (MQuAKE, multi-hop QA)."""


def _perturb_spec(ctx, param, value):
    from kgtool.eval.perturb import PerturbSpec

    try:
        return PerturbSpec.parse(value)
    except KgToolError as exc:
        raise click.BadParameter(str(exc)) from None


def _eval_options(what: str):
    """The options both eval commands share; `what` is what --limit counts."""
    options = [
        click.option("--method", "methods", default="all", show_default=True, metavar="M1,M2,...|all",
                     help="Methods to compare on the same questions, comma-separated; all = every registered "
                          "method (see `kgtool methods`)."),
        click.option("--agents", type=agent_choice(), default=None,
                     help="Agent family (default: llm when an endpoint is configured, else offline)."),
        click.option("--workers", default=4, show_default=True, help="Questions answered in parallel."),
        click.option("--limit", type=int, default=None, help=f"Only the first N {what}."),
        click.option("--perturb", callback=_perturb_spec, default=None, metavar="drop=F,distract=F,seed=N",
                     help="Answer on a perturbed view: hide a seeded fraction (drop) of the facts in force and "
                          "add plausible wrong facts (distract, a fraction of the facts in force). Stored facts "
                          "are not changed; the view is removed afterwards."),
        click.option("--keep-perturbation", is_flag=True,
                     help="Keep the perturbation after the run (to inspect it; remove it later with "
                          "`kgtool eval remove-perturbation ID`)."),
        click.option("--json", "json_out", type=click.Path(dir_okay=False),
                     help="Write the report as JSON: per method under methods.<name> (with one method also at "
                          "top level), with every question's result."),
        click.option("--html", "html_out", type=click.Path(dir_okay=False),
                     help="Write a self-contained HTML page: accuracy by method and hop count, abstention "
                          "(risk-coverage curve), latency and backtracks per method."),
        click.option("--wide", is_flag=True,
                     help="Show every column (EM, F1, Acc by hop count, p90, tokens, backtracks, fallbacks, "
                          "statuses); by default the table keeps within 120 characters."),
    ]

    def decorate(fn):
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate


def _run_eval(evaluate, json_out, html_out, wide=False):
    """Run `evaluate(kg, progress)` under a progress bar, print the side-by-side table, write the files."""
    with connect() as kg:
        report = run_with_progress("answering", "method", lambda progress: evaluate(kg, progress))
    print_eval(report.as_dict(), json_out, html_out, wide=wide)


@eval_.command("mquake")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--scope", type=Choice(["1", "k", "all"]), default="all", show_default=True,
              help="Edits in force per case: its own (1), its group of --k cases (k), or all.")
@click.option("--k", default=100, show_default=True, help="Group size for --scope k.")
@_eval_options("cases")
def eval_mquake(path, scope, k, methods, agents, workers, limit, perturb, keep_perturbation, json_out, html_out,
                wide):
    """Acc, Hop-Acc, EM and F1 of every method on an MQuAKE file (ingest it first).

    Acc counts a case when any of its questions gets the new answer or an
    alias; Hop-Acc when some question's chain matches every gold hop; both
    also by hop count. EM and F1 are per question (SQuAD normalisation).
    One row per method: accuracy, latency p50/p90, tokens and backtracks per
    question, run statuses.
    """
    formats.check_kind(path, formats.MQUAKE)
    _run_eval(lambda kg, progress: kg.evaluate_mquake(
        path, methods=methods, scope=scope, k=k, agents=agents, workers=workers, limit=limit, perturb=perturb,
        keep_perturbation=keep_perturbation, progress=progress), json_out, html_out, wide)


@eval_.command("qa")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=Choice(formats.QA.formats), default=None,
              help="jsonl ({\"id\", \"question\", \"answers\": [...], \"hops\"?, \"answerable\"?: false for a question "
                   "the graph cannot answer}), hotpotqa, musique, 2wiki, or "
                   "pathquestion (question<TAB>answers[<TAB>path]). Default: from the extension (.jsonl, .txt).")
@_eval_options("questions")
def eval_qa(path, fmt, methods, agents, workers, limit, perturb, keep_perturbation, json_out, html_out, wide):
    """EM, F1, Acc and (where the data has gold hops) Hop-Acc of every method on a multi-hop QA file.

    Answers are compared after SQuAD normalisation (lowercase, no punctuation
    or articles) with the gold answer and its aliases; Acc is exact match.
    Questions marked "answerable": false are scored by abstention (SQuAD 2.0):
    the table adds Acc on the answerable ones, answered precision, coverage,
    no-answer precision/recall and the AURC of the risk-coverage curve.
    Every edit in the graph is in force. A bad record stops the run before
    any question is answered, and every bad line is listed (file:line).
    """
    formats.detect_format(path, fmt, formats.QA)
    _run_eval(lambda kg, progress: kg.evaluate_qa(
        path, format=fmt, methods=methods, agents=agents, workers=workers, limit=limit, perturb=perturb,
        keep_perturbation=keep_perturbation, progress=progress), json_out, html_out, wide)


@eval_.command("retrieval")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=Choice(["hotpotqa", "musique"]), required=True,
              help="The question file's format; its corpus must be in the graph (kgtool ingest docs).")
@click.option("-k", "k", default="2,5,10", show_default=True, metavar="K1,K2,...", help="Cut-offs for recall@k.")
@click.option("--retriever", "retrievers", default="all", show_default=True, metavar="R1,R2,...|all",
              help="kgtool retrievers to compare with the BM25 baseline: fulltext, fulltext+bm25, dense, hybrid, "
                   "dense+linked, hybrid+linked, hybrid+cross_encoder, and the graph walks (personalised PageRank "
                   "over passages, entities and facts) dense+walk, dense+linked+walk, hybrid+walk, hybrid+walk+rrf.")
@click.option("--limit", type=int, default=None, help="Only the first N questions.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False),
              help="Write the report as JSON, with every question's top passages.")
def eval_retrieval(path, fmt, k, retrievers, limit, json_out):
    """Supporting-passage recall@k of each passage retriever next to a plain BM25 baseline (same run).

    The baseline ranks every stored passage with BM25 (rank-bm25, no index);
    kgtool's retrievers read pools through Cypher (full-text and vector
    indexes, linked documents) and rank them with named scorers. A retriever
    whose model is not installed is listed as unavailable. For MuSiQue it also
    reports how many decomposition answers became entities linked to their passage.
    """
    with connect() as kg:
        report = run_with_progress("retrieving", "name", lambda progress: kg.evaluate_retrieval(
            path, format=fmt, k=k, retrievers=retrievers, limit=limit, progress=progress))
    data = report.as_dict()
    print_retrieval(data)
    console.print(_cost_line(data))
    if data.get("facts_without_embedding"):
        print_notice("note:", f"{data['facts_without_embedding']} facts have no embedding from the graph's embedder, "
                              "so the walk cannot seed from them (it falls back to the question's names); ingest "
                              "the corpus again to embed them")
    if json_out:
        write_json(json_out, data)
        console.print(f"wrote {json_out}")


def _cost_line(data: dict) -> str:
    """Corpus size and time, so figures from corpora of different sizes can be compared."""
    cost = data["cost"]
    walked = "; ".join(f"{name} walks {r['subgraph']['passages']:.0f} passages / {r['subgraph']['entities']:.0f} "
                       f"entities a question" for name, r in data["retrievers"].items() if r.get("subgraph"))
    return (f"cost: {cost['passages_in_graph']} passages in the graph, {cost['seconds']:.1f} s in all"
            + (f"; {walked}" if walked else ""))


@eval_.command("remove-perturbation")
@click.argument("perturbation_id")
def eval_remove_perturbation(perturbation_id):
    """Remove a perturbation kept with --keep-perturbation (its distractors go; stored facts are untouched)."""
    with connect() as kg:
        removed = kg.remove_perturbation(perturbation_id)
    console.print(f"removed perturbation {perturbation_id} and its {removed} distractor fact(s)")


@click.command("verify-benchmark")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=Choice(formats.QA.formats), default=None,
              help="The question file's format (as for `kgtool eval qa`). Default: from the extension.")
@click.option("--max-hops", default=4, show_default=True, type=click.IntRange(1, 6),
              help="Longest chain of facts that counts as a grounded path.")
@click.option("--out", type=click.Path(dir_okay=False),
              help="Where the verifiable questions go (kgtool QA JSON lines). Default: ./<stem>.verified.jsonl")
@click.option("--summary", type=click.Path(dir_okay=False),
              help="Where the summary goes (JSON, every question's reason). Default: ./<stem>.verify.json")
@click.option("--limit", type=int, default=None, help="Only the first N questions.")
def verify_benchmark_cmd(path, fmt, max_hops, out, summary, limit):
    """The train-time verifiability filter: keep the questions whose answer the stored graph can reach.

    A question is verifiable when a chain of facts in force (at most
    --max-hops, either direction) joins an entity named in the question to a
    gold answer. Ingest the benchmark's corpus first (kgtool ingest docs).
    Prints the share removed and why; writes the verifiable subset (readable
    with `kgtool eval qa OUT --format jsonl`) and a JSON summary.
    """
    with connect() as kg:
        result = kg.verify_benchmark(path, format=fmt, max_hops=max_hops, out=out, summary=summary, limit=limit)
    print_verified(path, result)
