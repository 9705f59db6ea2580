"""VoG with offline agents against a real Neo4j: plans, verifications and bandit-chosen revisions stored
as the loop runs; the bandit's pure parts; `kgtool eval qa` on a fact-only (TSV) knowledge graph."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgtool.cli import main
from kgtool.errors import ConfigError
from kgtool.reason import bandit
from kgtool.reason.agents.vog_base import PlanStep
from kgtool.reason.methods.vog import Vog
from helpers import env_for

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "ingest" / "sample"
ANALYST = REPO / "kgtool" / "cypher" / "analyst"
SPOUSE_Q = "Who is the spouse of the head of state of the country Madonna is a citizen of?"


# ---------------------------------------------------------------- the bandit's pure parts


def test_width_follows_the_entropy_of_the_relation_scores():
    assert bandit.adaptive_width([0.95, 0.1, 0.1, 0.05, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], 3, 10, 0.1)[0] == 3
    k, h = bandit.adaptive_width([0.5] * 12, 3, 10, 0.1)
    assert k == 10 and h == pytest.approx(1.0)
    assert bandit.adaptive_width([0.5, 0.5], 3, 10, 0.1)[0] == 2  # never more than there are
    middle, h_mid = bandit.adaptive_width([0.6, 0.55, 0.5, 0.3, 0.2, 0.1, 0.1, 0.0], 3, 10, 0.1)
    assert 3 < middle < 10 and middle == math.floor(3 + 7 * h_mid)


def test_ucb_tries_every_arm_then_exploits_the_best_mean():
    cfg = bandit.SelectorConfig(c=1.4, lambda_ent=0.0, lambda_kg=0.0, diversity={})
    assert bandit.select_arm({}, cfg=cfg).arm == "local"
    assert bandit.select_arm({"local": bandit.ArmStats(1, 0.1)}, cfg=cfg).arm == "lookahead"
    stats = {"local": bandit.ArmStats(5, 4.0), "lookahead": bandit.ArmStats(5, -0.5), "global": bandit.ArmStats(5, 0.0)}
    choice = bandit.select_arm(stats, cfg=cfg)
    explore = 1.4 * math.sqrt(math.log(15) / 5)
    assert choice.arm == "local" and choice.scores["local"] == pytest.approx(0.8 + explore)
    assert choice.scores["lookahead"] == pytest.approx(-0.1 + explore)


def test_vog_settings_are_checked():
    with pytest.raises(ConfigError, match="width_min <= width_max"):
        Vog(width_min=5, width_max=3)
    with pytest.raises(ConfigError, match="arms must be a non-empty subset of local,lookahead,global"):
        Vog(arms="local,sideways")
    with pytest.raises(ConfigError, match="accept_threshold"):
        Vog(accept_threshold=2)
    vog = Vog(arms="global,local", penalty_global=0.3)
    assert vog.config()["arms"] == "global,local" and vog.config()["penalty_global"] == 0.3
    assert vog.config()["ucb_c"] == 1.4 and vog.config()["max_revisions"] == 4


# ---------------------------------------------------------------- answering


def test_offline_vog_answers_the_sample_and_stores_plan_steps_and_verdicts(sample_kg):
    kg = sample_kg
    questions = [json.loads(line) for line in (SAMPLE / "questions.jsonl").read_text().splitlines() if line.strip()]
    for item in questions:
        result = kg.answer(item["question"], method="vog", agents="offline")
        assert result.answer == item["answer"] and result.status == "answered", result.chain
        for a, b in zip(result.chain, result.chain[1:]):
            assert a["answer"] == b["entity"]  # each step starts where the one before ended
        _, plans = kg.query("MATCH (:Run {id: $run})-[:HAS_PLAN]->(p:Plan) RETURN p.version AS v, p.actions AS a",
                            {"run": result.run_id})
        assert [p["v"] for p in plans] == [0] and len(plans[0]["a"]) == len(result.chain)
        _, steps = kg.query(
            "MATCH (:Run {id: $run})-[:HAS_STEP]->(s:Step)<-[:ON]-(v:Verdict)-[:CHECKS]->(p:Plan) "
            "RETURN s.hop AS hop, s.width AS width, s.relation_entropy AS h, v.valid AS valid, "
            "v.confidence AS confidence, v.taxonomy AS taxonomy ORDER BY hop", {"run": result.run_id})
        assert [s["hop"] for s in steps] == list(range(1, len(result.chain) + 1))
        assert all(s["valid"] and 0 < s["confidence"] <= 1 and s["taxonomy"] == "VogError" for s in steps)
        assert all(1 <= s["width"] <= 10 and 0 <= s["h"] <= 1 for s in steps)
        trace = kg.trace(result.run_id)
        assert [p["version"] for p in trace["plans"]] == [0]


class _PlantedVog(Vog):
    """VoG whose first plan step follows a wrong relation: Madonna's song instead of her citizenship."""

    def draft_plan(self, ctx, question):
        plan = super().draft_plan(ctx, question)
        plan.steps[0] = PlanStep(thought="First the song Madonna performed.", action="Which song did Madonna perform?",
                                 relation="rel:performer", direction="in", expected="Hey Jude")
        return plan


def test_a_planted_wrong_first_step_is_revised_and_the_revision_stored(sample_kg, neo4j_settings):
    kg = sample_kg
    kg.methods.register("vog-planted", _PlantedVog)
    result = kg.answer(SPOUSE_Q, method="vog-planted", agents="offline")
    assert result.answer == "Keanu Reeves", result.chain
    assert result.chain[0]["relation"] == "country of citizenship" and result.backtracks >= 1
    run = {"run": result.run_id}
    # the planted step was followed, then flagged
    _, verdicts = kg.query(
        "MATCH (:Run {id: $run})-[:HAS_VERDICT]->(v:Verdict)-[:ON]->(s:Step {hop: 1}) "
        "RETURN v.valid AS valid, v.error_type AS error, s.answer AS answer, v.plan_version AS version "
        "ORDER BY v.round", run)
    assert verdicts[0] == {"valid": False, "error": "intent_drift", "answer": "Hey Jude", "version": 0}
    assert verdicts[-1]["valid"] and verdicts[-1]["answer"] == "Canada" and verdicts[-1]["version"] >= 1
    # the revision: its arm, UCB scores, reward = verification gain - the arm's penalty, plan versions linked
    _, revisions = kg.query(
        "MATCH (:Run {id: $run})-[:HAS_REVISION]->(x:Revision)-[:FROM]->(a:Plan), (x)-[:TO]->(b:Plan), "
        "(x)-[:ON]->(s:Step) RETURN x {.*} AS x, a.version AS a, b.version AS b, s.answer AS failed "
        "ORDER BY x.seq", run)
    accepted = [r for r in revisions if r["x"]["accepted"]]
    assert len(accepted) == 1 and revisions[-1] == accepted[0]
    x = accepted[0]["x"]
    penalty = {"local": 0.05, "lookahead": 0.1, "global": 0.2}[x["arm"]]
    assert x["penalty"] == penalty and x["reward"] == pytest.approx(x["gain"] - penalty)
    assert x["gain"] == pytest.approx(x["confidence_after"] - x["confidence_before"]) and x["gain"] > 0
    assert x["hop"] == 1 and accepted[0]["failed"] == "Hey Jude" and accepted[0]["b"] > accepted[0]["a"]
    assert revisions[0]["x"]["ucb_local"] == math.inf  # an arm not tried yet scores +inf
    assert set(json.loads(x["ucb_terms"])) == {"local", "lookahead", "global"}
    # the failed step is revised as the new plan's step, as every method's revisions are
    _, links = kg.query("MATCH (:Run {id: $run})-[:HAS_STEP]->(a:Step)-[r:REVISED_AS]->(b:Step) "
                        "RETURN a.answer AS old, b.answer AS new, r.kind AS kind", run)
    assert {"old": "Hey Jude", "new": "Canada", "kind": "plan_revision"} in links
    # plan versions: the revised one expects the graph's entity and no longer the song
    trace = kg.trace(result.run_id)
    versions = {p["version"]: p for p in trace["plans"]}
    final = versions[accepted[0]["b"]]
    assert final["arm"] == x["arm"] and final["parent_version"] == accepted[0]["a"]
    assert final["relations"][0] != "rel:performer" and versions[0]["expected"][0] == "Hey Jude"
    # the trace page and `kgtool trace show` show the plan versions
    from kgtool.reason.trace_html import render_trace_html

    page = render_trace_html(trace)
    assert "Plan versions" in page and page.count("data-plan-version=") == len(trace["plans"]) >= 2
    shown = CliRunner().invoke(main, ["trace", "show", result.run_id], env=env_for(neo4j_settings),
                               catch_exceptions=False)
    assert shown.exit_code == 0 and "plan v0 (draft): Which song did Madonna perform?" in shown.output
    assert f"plan v{accepted[0]['b']} ({x['arm']}, from v{accepted[0]['a']})" in shown.output
    # the analyst's arm statistics count it
    _, arms = kg.query_file(ANALYST / "vog_arms.cypher")
    assert any(r["arm"] == x["arm"] and r["accepted"] >= 1 and r["dataset"] == "edits" for r in arms), arms


def test_revisions_are_bounded_and_every_arm_is_tried_when_nothing_verifies(sample_kg):
    """A first step whose relation the topic does not have: no revision can verify it with one arm only,
    so the bandit spreads over the arms, at most max_revisions times per failed check."""
    kg = sample_kg

    class Unanswerable(Vog):
        def draft_plan(self, ctx, question):
            plan = super().draft_plan(ctx, question)
            plan.topic, plan.topic_id = "Hey Jude", ctx.link("Hey Jude")
            plan.steps = [PlanStep(thought="x", action="Who is the spouse of Hey Jude?", relation="rel:spouse",
                                   direction="out", expected="Nobody")]
            return plan

    kg.methods.register("vog-unanswerable", Unanswerable)
    result = kg.answer("Who is the spouse of Hey Jude?", method="vog-unanswerable", agents="offline", max_revisions=3)
    _, rows = kg.query("MATCH (:Run {id: $run})-[:HAS_REVISION]->(x:Revision) RETURN x.arm AS arm, "
                       "x.accepted AS accepted ORDER BY x.seq", {"run": result.run_id})
    assert 1 <= len(rows) <= 3 * 2  # per failed check at most max_revisions
    assert [r["arm"] for r in rows[:3]] == ["local", "lookahead", "global"][:len(rows[:3])]
    assert result.backtracks == len(rows)


def test_a_spent_call_budget_ends_the_run_without_reporting_the_plans_guess(sample_kg):
    kg = sample_kg
    # the plan, then hop 1's relation and entity choices: the verifier's call is over budget
    result = kg.answer(SPOUSE_Q, method="vog", agents="offline", call_budget=3)
    # the plan predicted Keanu Reeves, but a guess is not an answer: the chain stopped short
    assert result.status == "no_answer" and result.answer != "Keanu Reeves"
    _, rows = kg.query("MATCH (r:Run {id: $run}) RETURN r.status AS status, COUNT { (r)-[:HAS_STEP]->() } AS steps, "
                       "COUNT { (r)-[:HAS_VERDICT]->() } AS verdicts", {"run": result.run_id})
    assert rows == [{"status": "no_answer", "steps": 1, "verdicts": 0}]


# ---------------------------------------------------------------- a fact-only knowledge graph

FACTS = """head\trelation\ttail\tevidence
The Silent Orchard\tauthor\tMira Castellan\tThe Silent Orchard was written by Mira Castellan.
Mira Castellan\tplace of birth\tPort Elsin\tMira Castellan was born in Port Elsin.
Port Elsin\tcountry\tValdoria\tPort Elsin is a city in Valdoria.
Valdoria\tcapital\tKessra\tThe capital of Valdoria is Kessra.
Valdoria\tofficial language\tValdorian\tThe official language of Valdoria is Valdorian.
Mira Castellan\tspouse\tTomas Reyl\tMira Castellan is married to Tomas Reyl.
Tomas Reyl\temployer\tNorthgate University\tTomas Reyl works for Northgate University.
Northgate University\tfounded by\tEdda Marlow\tNorthgate University was founded by Edda Marlow.
Brass Lantern\tdirector\tTomas Reyl\tBrass Lantern was directed by Tomas Reyl.
Edda Marlow\tplace of birth\tKessra\tEdda Marlow was born in Kessra.
"""

KB_QUESTIONS = [
    {"id": "capital", "question": "What is the capital of the country where the author of The Silent Orchard "
                                  "was born?", "answers": ["Kessra"], "hop_answers": ["Mira Castellan", "Port Elsin",
                                                                                     "Valdoria", "Kessra"]},
    {"id": "founder", "question": "Who founded the employer of the spouse of Mira Castellan?",
     "answers": ["Edda Marlow"], "hops": 3},
    {"id": "language", "question": "What is the official language of the country of Port Elsin?",
     "answers": ["Valdorian"], "hops": 2},
    {"id": "birthplace", "question": "Where was the founder of Northgate University born?", "answers": ["Kessra"],
     "hops": 2},
]


def test_eval_qa_on_a_fact_only_graph_works_for_vog(kg, neo4j_settings, tmp_path):
    facts, questions = tmp_path / "world.tsv", tmp_path / "questions.jsonl"
    facts.write_text(FACTS, encoding="utf-8")
    questions.write_text("\n".join(json.dumps(q) for q in KB_QUESTIONS) + "\n", encoding="utf-8")
    kg.ingest_facts(facts)
    assert kg.query("MATCH (f:Fact) RETURN count(f) AS n")[1][0]["n"] == 10
    out = tmp_path / "report.json"
    result = CliRunner(env={"COLUMNS": "250"}).invoke(
        main, ["eval", "qa", str(questions), "--format", "jsonl", "--method", "vog", "--agents", "offline",
               "--workers", "2", "--json", str(out)], env=env_for(neo4j_settings), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())["methods"]["vog"]
    by_id = {r["id"]: r for r in report["results"]}
    assert {k: r["prediction"] for k, r in by_id.items()} == {q["id"]: q["answers"][0] for q in KB_QUESTIONS}
    assert report["acc"] == 1.0 and report["hop_acc"] == 1.0
    _, plans = kg.query("MATCH (r:Run {method: 'vog'})-[:HAS_PLAN]->(p:Plan) RETURN count(DISTINCT r) AS runs")
    assert plans[0]["runs"] == len(KB_QUESTIONS)


# ---------------------------------------------------------------- the NLI check (a tiny random model, built here)


def _tiny_nli(path: Path, contradiction_bias: float) -> Path:
    """A 1-layer BERT classifier with NLI labels whose output is fixed by its bias (no weights from a hub)."""
    import torch
    import transformers

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "madonna", "canada", "is", "a", "citizen", "of"]
    (path / "vocab.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    labels = {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}
    config = transformers.BertConfig(vocab_size=len(words), hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=16, max_position_embeddings=64, num_labels=3, id2label=labels,
                                     label2id={v: k for k, v in labels.items()})
    model = transformers.BertForSequenceClassification(config)
    with torch.no_grad():
        model.classifier.weight.zero_()
        model.classifier.bias.copy_(torch.tensor([contradiction_bias, 0.0, 0.0]))
    model.save_pretrained(path)
    transformers.BertTokenizer(str(path / "vocab.txt")).save_pretrained(path)
    return path


def test_an_nli_model_that_sees_a_contradiction_fails_a_consistent_step(tmp_path):
    from kgtool.core.types import CandidateFact, ChainLink
    from kgtool.reason.agents.vog_base import Check, VogPlan

    fact = CandidateFact("f1", "e1", "Madonna", "country of citizenship", "e2", "Canada", "Madonna is a citizen of Canada.")
    link = ChainLink(hop=1, subquestion="q", entity_in="Madonna", fact=fact, answer="Canada", evidence=fact.evidence)
    plan = VogPlan([PlanStep("t", "What is the country of citizenship of Madonna?")], "Madonna")
    (tmp_path / "no").mkdir()
    (tmp_path / "yes").mkdir()
    keeps = Check(True, 0.9)
    Vog(nli_model=str(_tiny_nli(tmp_path / "no", -5.0)))._nli(plan, 0, link, keeps)
    assert keeps.consistent and keeps.checks["nli_contradiction"] < 0.01
    flips = Check(True, 0.9)
    Vog(nli_model=str(_tiny_nli(tmp_path / "yes", 5.0)))._nli(plan, 0, link, flips)
    assert not flips.consistent and flips.error_type == "hallucinated_fact" and flips.confidence < 0.05
    with pytest.raises(ConfigError, match="could not be loaded"):
        Vog(nli_model=str(tmp_path / "missing"))._nli(plan, 0, link, Check(True, 0.9))
