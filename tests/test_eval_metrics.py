"""Answer metrics (SQuAD EM/F1, Hop-Acc, percentiles) and the per-method summary, without a database."""
from __future__ import annotations

import pytest
from rich.console import Console

from kgtool.eval.metrics import (
    chain_matches,
    exact_match,
    max_f1,
    normalize_answer,
    percentile,
    token_f1,
)
from kgtool.eval.report import CaseResult, EvalReport, MethodRun, QuestionResult, rich_table


def test_squad_normalisation():
    assert normalize_answer("The  Beatles!") == "beatles"
    assert normalize_answer("An apple, a day; the END.") == "apple day end"
    assert normalize_answer("Theatre of the absurd") == "theatre of absurd"  # "the" only as a word
    assert normalize_answer("  U.S.A.  ") == "usa"
    assert normalize_answer(None) == "" and normalize_answer("") == ""


def test_exact_match_over_answers_and_aliases():
    golds = ["Madonna", "Madonna Louise Ciccone"]
    assert exact_match("madonna louise ciccone.", golds) == 1.0
    assert exact_match("The Madonna", golds) == 1.0  # the article goes
    assert exact_match("Madonna Ciccone", golds) == 0.0
    assert exact_match(None, golds) == 0.0 and exact_match("", golds) == 0.0


def test_f1_partial_overlap_and_best_alias():
    # 2 shared tokens: precision 2/4, recall 2/2
    assert token_f1("the Eiffel Tower in Paris", "Eiffel Tower") == pytest.approx(2 * 0.5 * 1 / 1.5)
    assert token_f1("Paris", "Eiffel Tower") == 0.0
    assert token_f1("Eiffel Tower", "eiffel tower!") == 1.0
    # the best alias wins: "new york" gives P=2/3, R=1 -> 0.8; "NYC" gives 0
    assert max_f1("New York City", ["NYC", "New York"]) == pytest.approx(0.8)
    assert max_f1(None, ["x"]) == 0.0
    # repeated tokens count once each side (Counter intersection)
    assert token_f1("red red red", "red") == pytest.approx(2 * (1 / 3) * 1 / (1 / 3 + 1))


def test_chain_matches_needs_every_hop_in_order():
    gold = [("Madonna", "Madonna Louise Ciccone"), ("Canada",)]
    good = [{"answer": "Madonna Louise Ciccone"}, {"answer": "canada"}]
    assert chain_matches(good, gold)
    assert not chain_matches(good[:1], gold)  # too short
    assert not chain_matches([{"answer": "Madonna"}, {"answer": "Ottawa"}], gold)
    assert not chain_matches(good, [])


def test_percentile_is_nearest_rank():
    values = [10.0, 1.0, 5.0, 7.0, 3.0]
    assert percentile(values, 50) == 5.0 and percentile(values, 90) == 10.0 and percentile(values, 0) == 1.0
    assert percentile([], 50) == 0.0


def _result(qid, em, f1=None, hops=2, hop_correct=None, status="answered", backtracks=0, latency=10.0, tokens=0):
    return QuestionResult(id=qid, question=f"q {qid}", prediction="p", gold=["g"], em=em,
                          f1=em if f1 is None else f1, hop_correct=hop_correct, hops=hops, status=status,
                          run_id=f"run-{qid}", latency_ms=latency, tokens=tokens, backtracks=backtracks)


def test_method_summary_figures():
    run = MethodRun("m1", "offline", [
        _result("a", 1.0, hops=2, hop_correct=True, latency=10.0, backtracks=0, tokens=100),
        _result("b", 0.0, f1=0.5, hops=2, hop_correct=False, latency=30.0, backtracks=2, tokens=50),
        _result("c", 1.0, hops=3, latency=20.0, backtracks=1, status="generated"),
        _result("d", 0.0, f1=0.0, hops=None, latency=40.0, status="failed"),
    ], seconds=1.234)
    data = EvalReport("qa", "x.jsonl", "jsonl", "offline", "all", [run]).as_dict()
    s = data["methods"]["m1"]
    assert s["acc"] == s["em"] == 0.5 and s["f1"] == pytest.approx(2.5 / 4)
    assert s["hop_acc"] == 0.5  # only the two questions with gold hops count
    assert s["by_hops"] == {"2": {"questions": 2, "acc": 0.5, "em": 0.5, "f1": 0.75, "hop_acc": 0.5},
                            "3": {"questions": 1, "acc": 1.0, "em": 1.0, "f1": 1.0, "hop_acc": None}}
    assert s["latency_ms"]["p50"] == 30.0 and s["latency_ms"]["p90"] == 40.0
    assert s["backtracks_per_question"] == 0.75 and s["tokens_per_question"] == 37.5
    assert s["status"] == {"answered": 2, "failed": 1, "generated": 1}
    assert [r["id"] for r in s["results"]] == ["a", "b", "c", "d"]
    assert set(s["results"][0]) >= {"id", "question", "prediction", "gold", "em", "f1", "status", "run_id",
                                    "latency_ms"}
    # one method: the same fields at top level too
    assert data["acc"] == 0.5 and data["method"] == "m1" and data["results"] == s["results"]


def test_two_methods_have_no_top_level_figures_and_one_row_each():
    runs = [MethodRun(m, "offline", [_result("a", v)], 0.1) for m, v in (("m1", 1.0), ("m2", 0.0))]
    data = EvalReport("qa", "x.jsonl", "jsonl", "offline", "all", runs).as_dict()
    assert list(data["methods"]) == ["m1", "m2"] and "acc" not in data
    assert data["methods"]["m1"]["acc"] == 1.0 and data["methods"]["m2"]["acc"] == 0.0
    table = rich_table(data, wide=True)  # the hop counts are wide columns
    assert table.row_count == 2
    console = Console(width=250, record=True)
    console.print(table)
    text = console.export_text()
    assert "m1" in text and "m2" in text and "Acc 2-hop" in text


def test_mquake_cases_replace_question_acc():
    results = [_result("c1:0", 0.0, hops=4, hop_correct=False), _result("c1:1", 1.0, hops=4, hop_correct=True),
               _result("c2:0", 0.0, hops=4, hop_correct=False)]
    cases = [CaseResult("c1", 4, True, True, ["c1:0", "c1:1"]), CaseResult("c2", 4, False, False, ["c2:0"])]
    s = EvalReport("mquake", "m.json", "mquake", "offline", "1", [MethodRun("m", "offline", results, 0.0, cases)]
                   ).as_dict()
    assert s["cases"] == 2 and s["questions"] == 3
    assert s["acc"] == 0.5 and s["hop_acc"] == 0.5  # per case, not per question (1/3)
    assert s["em"] == pytest.approx(1 / 3)
    assert s["by_hops"]["4"]["cases"] == 2 and s["by_hops"]["4"]["questions"] == 3
    assert [c["case_id"] for c in s["case_results"]] == ["c1", "c2"]
