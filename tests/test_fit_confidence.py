"""bench/fit_confidence.py fits the confidence's weights on stored answers: its confidence is the status
rule's (kgtool.reason.abstain.weigh), its AURC the evaluation's (kgtool.eval.abstention), and on answers
whose evidence orders them the other way round from the defaults it finds weights with a lower AURC."""
from __future__ import annotations

import importlib.util
import json
import random
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from kgtool.eval.abstention import risk_coverage
from kgtool.reason.abstain import ConfidenceEvidence, weigh
from kgtool.reason.offline_config import OfflineConfig

REPO = Path(__file__).resolve().parent.parent


def _fit_module():
    spec = importlib.util.spec_from_file_location("fit_confidence", REPO / "bench" / "fit_confidence.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _result(evidence: ConfidenceEvidence | None, right: bool, settings=OfflineConfig()) -> dict:
    return {"confidence_evidence": evidence.as_dict() if evidence else None, "answerable": True,
            "guess_em": 1.0 if right else 0.0, "confidence": weigh(evidence, settings) if evidence else 0.0}


def _random_results(seed: int, n: int = 60) -> list[dict]:
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        lacks = rnd.choice([0, 0, 1])
        ev = ConfidenceEvidence(rnd.random() < 0.6, rnd.choice([0.5, 1.0]), lacks + rnd.choice([0, 1, 2]),
                                rnd.choice([1.0, 0.5, 0.25]), lacks, rnd.random() < 0.1)
        out.append(_result(ev if rnd.random() < 0.9 else None, rnd.random() < 0.5))
    return out


def test_the_fit_weighs_and_scores_as_the_status_rule_and_the_evaluation_do():
    fit = _fit_module()
    config = OfflineConfig()
    for seed in range(5):
        results = _random_results(seed)
        group = fit.Group("s/f/m", results)
        got = group.confidence(config)
        assert np.allclose(got, group.stored, atol=1e-9)
        other = replace(config, confidence_judge_weight=0.1, confidence_support_weight=0.3,
                        confidence_reading_weight=0.25, confidence_focus_weight=0.4, reading_cost=1.0)
        assert np.allclose(group.confidence(other),
                           [weigh(ConfidenceEvidence(**r["confidence_evidence"]), other)
                            if r["confidence_evidence"] else 0.0 for r in results], atol=1e-9)
        as_results = [SimpleNamespace(confidence=c, answerable=True, guess_em=r["guess_em"])
                      for c, r in zip(got, results)]
        assert abs(group.aurc(got) - risk_coverage(as_results)[1]) < 1e-12


def test_the_fit_finds_weights_that_rank_right_answers_first(tmp_path):
    fit = _fit_module()
    # right answers: the judge rejected them but their reading is clean; wrong ones: accepted, with a doubt.
    # The defaults weigh the judge most, so they rank the wrong answers first.
    right = ConfidenceEvidence(False, 1.0, 0, 1.0, 0, False)
    wrong = ConfidenceEvidence(True, 1.0, 1, 1.0, 0, False)
    runs = {"devset": {"q.jsonl": {"care": {"results": [_result(right, True)] * 10 + [_result(wrong, False)] * 10}}},
            "paraphrase_heldout": {"q.jsonl": {"care": {"results": [_result(wrong, True)] * 5}}}}
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(runs))
    out = tmp_path / "fit.json"
    assert fit.main([str(path), "--step", "0.25", "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["groups"] == 1  # the held-out set is not fitted on
    assert got["fitted_value"] < got["defaults"]
    perfect = [SimpleNamespace(confidence=1.0 if r else 0.0, answerable=True, guess_em=float(r))
               for r in [True] * 10 + [False] * 10]
    assert abs(got["fitted_value"] - risk_coverage(perfect)[1]) < 1e-12  # every right answer above every wrong one
    assert got["fitted"]["confidence_reading_weight"] > got["fitted"]["confidence_judge_weight"]


def test_runs_without_evidence_are_refused_with_the_group_named(tmp_path):
    fit = _fit_module()
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"devset": {"q.jsonl": {"care": {"results": [{"confidence": 0.5}]}}}}))
    try:
        fit.main([str(path)])
    except SystemExit as exc:
        assert "devset/q.jsonl/care" in str(exc) and "confidence_evidence" in str(exc)
    else:
        raise AssertionError("a run without evidence was fitted on")
