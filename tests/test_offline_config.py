"""The offline front end's numbers live in one documented OfflineConfig (issue 44).

Every field says what it does and where its value comes from; the user settings among them reach a real
run; no float literal is left in the front end's modules (counted the way bench/front_end_counts.py
counts them); KGTOOL_OFFLINE_CONFIG replaces the others for a process (what bench/fit_offline.py uses).
"""
from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgtool.config import Settings
from kgtool.errors import ConfigError
from kgtool.reason.agents.offline.common import Thresholds
from kgtool.reason.offline_config import ENV, OFFLINE, OfflineConfig

REPO = Path(__file__).resolve().parent.parent
# a source a field may give: a commit, a paper, a measurement, the fitting script
SOURCE = re.compile(r"\b[0-9a-f]{7}\b|paper|fitted by bench/fit_offline\.py|measured")


def _bench_script(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_field_says_its_meaning_and_its_source():
    infos = OfflineConfig.describe()
    assert len(infos) >= 40
    for info in infos:
        meaning = SOURCE.split(info.doc)[0].strip()
        assert len(meaning.split()) >= 4, f"{info.name}: no meaning in {info.doc!r}"
        assert SOURCE.search(info.doc), f"{info.name}: no source in {info.doc!r}"


def test_user_settings_are_global_settings_that_fill_the_shared_thresholds():
    fields = {f.name for f in dataclasses.fields(Settings)}
    changed = {"fit": 0.42, "same_relation": 0.66, "reverse_factor": 0.6, "name_coverage": 0.7,
               "text_prior": 0.55, "structured": False}
    assert set(OfflineConfig.GLOBALS) == set(changed)
    for name, global_name in OfflineConfig.GLOBALS.items():
        assert global_name in fields, global_name
        assert getattr(Settings(), global_name) == getattr(OFFLINE, name), name  # one default, not two
        thresholds = Thresholds.from_settings(Settings(**{global_name: changed[name]}))
        assert getattr(thresholds, name) == changed[name], name
        built = OfflineConfig.build("offline", {}, Settings(**{global_name: changed[name]}), kind="settings")
        assert getattr(built, name) == changed[name], name


def test_no_float_literal_left_in_the_front_end():
    counter = _bench_script("front_end_counts")
    package = REPO / "kgtool"
    # the front end, and the status rule, whose bars and weights are settings of the same config
    status_rule = ["reason/abstain.py", "reason/status.py"]
    files = sorted({p for pattern in [*counter.FRONT_END, *status_rule] for p in package.glob(pattern)})
    assert len(files) >= 30
    knobs = {p.relative_to(package).as_posix(): counter.count(p)[2] for p in files}
    left = {name: n for name, n in knobs.items() if n and name not in counter.ALLOWED}
    assert not left, f"float literals outside kgtool/reason/offline_config.py: {left}"


def test_a_bad_value_is_refused_with_the_settings_named():
    with pytest.raises(ConfigError, match="reverse_factor"):
        OfflineConfig(reverse_factor=1.5)
    with pytest.raises(ConfigError, match="hop_cost"):
        OfflineConfig.build("offline", {"hop_cost": 0.1}, kind="settings")  # the field is planner_hop_cost


def test_the_environment_replaces_values_for_a_whole_process():
    code = ("from kgtool.reason.offline_config import OFFLINE\n"
            "from kgtool.reason.agents.offline.structured import SearchSettings\n"
            "print(OFFLINE.structured_hop_cost, SearchSettings().hop_cost, OFFLINE.merge_cost)")
    env = {**os.environ, ENV: json.dumps({"structured_hop_cost": 0.25}), "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0.25", "0.25", str(OFFLINE.merge_cost)]
    env[ENV] = json.dumps({"no_such_knob": 1})
    bad = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert bad.returncode != 0 and "no_such_knob" in bad.stderr


def test_kgtool_methods_lists_the_offline_settings():
    from kgtool.cli import main

    listing = CliRunner().invoke(main, ["methods"], catch_exceptions=False)
    assert "kgtool methods offline" in listing.output
    result = CliRunner().invoke(main, ["methods", "offline"], env={"COLUMNS": "400"}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    for info in OfflineConfig.describe():
        assert info.name in result.output
    assert "user setting offline_reverse_factor" in result.output


def test_a_user_setting_changes_a_real_run(sample_kg):
    """A question the sample answers by reading one of its relations backwards: with
    offline_reverse_factor at 0 a backwards reading counts for nothing, and the same run no longer
    reaches that answer; back at the default it does again."""
    kg = sample_kg
    question = "Which song was performed by Madonna?"  # the sample's performer edit, asked from its object
    default = kg.answer(question, agents="offline")
    assert default.status == "answered" and default.answer == "Hey Jude"
    saved = kg.settings.offline_reverse_factor
    kg.settings.offline_reverse_factor = 0.0
    try:
        strict = kg.answer(question, agents="offline")
    finally:
        kg.settings.offline_reverse_factor = saved
    assert (strict.status, strict.answer) != (default.status, default.answer)
    again = kg.answer(question, agents="offline")
    assert (again.status, again.answer) == (default.status, default.answer)


def test_the_fit_objective_is_answered_precision_then_acc():
    fit = _bench_script("fit_offline")
    rows = [{"em": True, "status": "answered", "answerable": True},
            {"em": False, "status": "answered", "answerable": True},
            {"em": False, "status": "no_answer", "answerable": True},
            {"em": True, "status": "answered", "answerable": False}]  # an unanswerable one answered: wrong
    assert fit.score([{"results": rows}]) == (pytest.approx(1 / 3), pytest.approx(1 / 3))
    cautious = [dict(r, status="no_answer") if not r["em"] or r["answerable"] is False else r for r in rows]
    assert fit.score([{"results": cautious}])[0] > fit.score([{"results": rows}])[0]
    assert set(fit.GRID) <= {f.name for f in dataclasses.fields(OfflineConfig)}


def test_the_status_objective_is_answered_precision_then_no_answer_f1_then_right_answers_answered():
    fit = _bench_script("fit_offline")
    rows = [{"em": True, "status": "answered", "answerable": True},
            {"em": True, "status": "unverified", "answerable": True},
            {"em": False, "status": "no_answer", "answerable": True},  # abstained on an answerable one
            {"em": False, "status": "no_answer", "answerable": False},
            {"em": False, "status": "unverified", "answerable": False}]
    precision, f1, right_answered = fit.score([{"results": rows}], "status")
    assert precision == 1.0
    assert f1 == pytest.approx(0.5)  # no-answer precision 1/2, recall 1/2
    assert right_answered == pytest.approx(0.5)
    # abstaining on the unanswerable guess is better; answering it is worse than anything else
    abstains = [dict(r, status="no_answer") if r["answerable"] is False else r for r in rows]
    answers = [dict(r, status="answered") if r["answerable"] is False else r for r in rows]
    assert fit.score([{"results": abstains}], "status") > fit.score([{"results": rows}], "status")
    assert fit.score([{"results": answers}], "status") < fit.score([{"results": rows}], "status")
    assert set(fit.STATUS_GRID) <= {f.name for f in dataclasses.fields(OfflineConfig)}


def test_the_fit_refuses_a_held_out_set():
    out = subprocess.run([sys.executable, str(REPO / "bench" / "fit_offline.py"), "--sets", "status,paraphrase_heldout"],
                         env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True)
    assert out.returncode != 0 and "paraphrase_heldout is held out" in out.stderr


class _ScoredStores:
    """Stands in for fit_offline.Stores (which evaluates real stores) to check the search itself: the
    share of right answers is a function of the values tried."""

    def __init__(self, right_share):
        self.right_share, self.calls = right_share, []

    def run(self, points, method):
        self.calls.append(points)
        out = []
        for values in points:
            right = round(10 * self.right_share(values))
            rows = [{"em": i < right, "status": "answered" if i < right else "no_answer", "answerable": True}
                    for i in range(10)]
            out.append([{"results": rows}])
        return out


def test_the_fit_moves_a_knob_only_on_a_strictly_better_score_and_tries_the_knobs_together():
    fit = _bench_script("fit_offline")
    default = OfflineConfig()
    # planner_hop_cost: higher is better; selector_margin and min_fit: every value scores the same
    stores = _ScoredStores(lambda v: 0.5 + v.get("planner_hop_cost", default.planner_hop_cost) - 0.35)
    result = fit.fit(stores, {"selector_margin": [0.1, 0.2], "planner_hop_cost": [0.25, 0.35, 0.45],
                              "min_fit": [0.1]}, "care", lambda msg: None)
    assert result["fitted"] == {"planner_hop_cost": 0.45}  # the ties keep the other knobs' defaults
    assert result["after"] > result["before"]
    assert result["knobs"]["min_fit"]["fitted"] == default.min_fit
    # the defaults and every knob's values in one run; after a knob moves, the knobs after it run again
    # from its fitted value (the knobs before it stand: they were tried from the same values)
    assert stores.calls == [[{}, {"selector_margin": 0.1}, {"selector_margin": 0.2}, {"planner_hop_cost": 0.25},
                             {"planner_hop_cost": 0.45}, {"min_fit": 0.1}],
                            [{"planner_hop_cost": 0.45, "min_fit": 0.1}]]
