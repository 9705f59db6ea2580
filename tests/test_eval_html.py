"""The HTML evaluation report, checked as text and rendered in headless Chromium (as test_trace_html does)."""
from __future__ import annotations

import time
from html.parser import HTMLParser

import pytest
from test_trace_html import EVIL, DevTools, dump_dom

from kgtool.eval.report import EvalReport, MethodRun, QuestionResult
from kgtool.eval.report_html import render_report_html


def _result(method: str, i: int, em: float, hops: int, latency: float, backtracks: int) -> QuestionResult:
    return QuestionResult(id=f"q{i}", question=f"Question {i} {EVIL if i == 0 else ''}",
                          prediction=EVIL if (method == "beta" and i == 1) else f"answer {i}", gold=[f"gold {i}"],
                          em=em, f1=em, hop_correct=bool(em) if hops == 2 else None, hops=hops, status="answered",
                          run_id=f"run-{method}-{i}", latency_ms=latency, backtracks=backtracks)


def make_report() -> dict:
    # alpha: 3 of 4 right (2-hop 2/2, 3-hop 1/2); beta: 1 of 4 (2-hop 1/2, 3-hop 0/2)
    alpha = [_result("alpha", i, em, h, lat, b) for i, (em, h, lat, b) in
             enumerate([(1, 2, 10, 0), (1, 2, 20, 0), (1, 3, 30, 1), (0, 3, 40, 3)])]
    beta = [_result("beta", i, em, h, lat, b) for i, (em, h, lat, b) in
            enumerate([(1, 2, 100, 2), (0, 2, 200, 0), (0, 3, 300, 1), (0, 3, 400, 0)])]
    report = EvalReport("qa", "questions.jsonl", "jsonl", "offline", "all",
                        [MethodRun("alpha", "offline", alpha, 1.0), MethodRun("beta", "offline", beta, 2.0)],
                        perturbation={"id": "pert-1", "drop": 0.1, "distract": 0.1, "seed": 1, "hidden": 3,
                                      "added": 3, "removed": True})
    return report.as_dict()


class Marks(HTMLParser):
    """Every element with data-chart, as a dict of its attributes; scripts and links to elsewhere."""

    def __init__(self):
        super().__init__()
        self.marks: list[dict] = []
        self.scripts = 0
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        self.links += [v or "" for k, v in attrs if k in ("src", "href", "xlink:href", "action")]
        if "data-chart" in a:
            self.marks.append({"tag": tag, **a})


def marks(page: str, chart: str) -> list[dict]:
    parser = Marks()
    parser.feed(page)
    return [m for m in parser.marks if m["data-chart"] == chart]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(render_report_html(make_report()), encoding="utf-8")
    return path


def test_page_is_self_contained_and_escaped():
    page = render_report_html(make_report())
    parsed = Marks()
    parsed.feed(page)
    assert parsed.scripts == 0 and parsed.links == []  # no code, nothing loaded from elsewhere
    assert "<script" not in page and "<img" not in page  # the evil strings are text
    assert "http://" not in page and "https://" not in page
    assert "&lt;/script&gt;&lt;script&gt;document.body.appendChild" in page
    for chart in ("accuracy", "hops", "latency", "backtracks"):
        assert f'id="chart-{chart}"' in page
    assert "pert-1: drop 0.1, distract 0.1, seed 1" in page


def test_chart_marks_carry_the_figures():
    page = render_report_html(make_report())
    acc = {(m["data-method"], m["data-metric"]): float(m["data-value"]) for m in marks(page, "accuracy")}
    assert acc[("alpha", "Acc")] == 0.75 and acc[("beta", "Acc")] == 0.25 and acc[("alpha", "Hop-Acc")] == 1.0
    hops = {(m["data-hops"], m["data-method"]): float(m["data-value"]) for m in marks(page, "hops")}
    assert hops == {("2", "alpha"): 1.0, ("2", "beta"): 0.5, ("3", "alpha"): 0.5, ("3", "beta"): 0.0}
    boxes = {m["data-method"]: m for m in marks(page, "latency")}
    assert float(boxes["alpha"]["data-p50"]) == 30.0 and float(boxes["beta"]["data-p100"]) == 400.0
    shares = {(m["data-method"], m["data-bucket"]): float(m["data-value"]) for m in marks(page, "backtracks")}
    assert shares[("alpha", "0")] == 0.5 and shares[("alpha", "3+")] == 0.25 and shares[("beta", "2")] == 0.25


def test_a_report_without_hops_or_gold_hops_renders():
    data = make_report()
    for summary in data["methods"].values():
        summary["by_hops"], summary["hop_acc"] = {}, None
    page = render_report_html(data)
    assert "No hop counts in this data." in page and not marks(page, "hops")
    assert {m["data-metric"] for m in marks(page, "accuracy")} == {"Acc", "EM", "F1"}


def test_dom_in_chromium(page, tmp_path):
    dom = dump_dom(page, tmp_path)
    assert len(marks(dom, "accuracy")) == 8 and len(marks(dom, "latency")) == 2
    assert 'id="pwned"' not in dom and "data-pwned=" not in dom
    assert "&lt;/script&gt;&lt;script&gt;document.body.appendChild" in dom


def wait_for_chart(tools, chart_id: str, timeout: float = 30) -> None:
    """Wait until the report has loaded with the chart `chart_id` (the first page target can still be
    about:blank)."""
    deadline = time.monotonic() + timeout
    while not tools.js(f"document.readyState == 'complete' && !!document.getElementById('{chart_id}')"):
        assert time.monotonic() < deadline, "the page never finished loading"
        time.sleep(0.1)


def test_charts_render_to_scale_in_chromium(page, tmp_path):
    tools = DevTools(page.as_uri(), tmp_path / "profile")
    try:
        wait_for_chart(tools, "chart-accuracy")

        def box(selector: str) -> dict:
            return tools.js(f"(function(){{var r=document.querySelector('{selector}').getBoundingClientRect();"
                            "return {w: r.width, h: r.height, x: r.left};})()")

        acc_alpha = box('[data-chart="accuracy"][data-method="alpha"][data-metric="Acc"]')
        acc_beta = box('[data-chart="accuracy"][data-method="beta"][data-metric="Acc"]')
        assert acc_beta["h"] > 0 and acc_alpha["h"] / acc_beta["h"] == pytest.approx(3.0, rel=0.02)
        hop_alpha = box('[data-chart="hops"][data-hops="2"][data-method="alpha"]')
        assert hop_alpha["h"] / acc_beta["h"] == pytest.approx(4.0, rel=0.02)
        # beta is 10x slower: its latency box sits to the right and is wider
        lat_alpha = box('[data-chart="latency"][data-method="alpha"] rect')
        lat_beta = box('[data-chart="latency"][data-method="beta"] rect')
        assert lat_beta["x"] > lat_alpha["x"] and lat_beta["w"] > lat_alpha["w"] > 0
        # each method's backtrack shares fill the same total width
        widths = tools.js("(function(){var t={};document.querySelectorAll('[data-chart=\"backtracks\"]')"
                          ".forEach(function(n){var m=n.getAttribute('data-method');"
                          "t[m]=(t[m]||0)+n.getBoundingClientRect().width;});return t;})()")
        assert widths["alpha"] == pytest.approx(widths["beta"], rel=0.01) and widths["alpha"] > 100
        # nothing was fetched: no network, no external resource
        assert tools.js("performance.getEntriesByType('resource').length") == 0
        assert tools.js("!!document.getElementById('pwned') || document.body.hasAttribute('data-pwned')") is False
    finally:
        tools.close()


def abstention_report() -> dict:
    """sure: confident when right; unsure: confident when wrong; each with an unanswerable question."""
    def r(method, i, right, confidence, status="answered", answerable=True):
        em = float(right) if answerable else float(status == "no_answer")
        return QuestionResult(id=f"q{i}", question=f"Question {i}", prediction=None if status == "no_answer" else "x",
                              gold=["x"], em=em, f1=em, hop_correct=None, hops=1, status=status,
                              run_id=f"run-{method}-{i}", latency_ms=1.0, answerable=answerable,
                              confidence=confidence, guess_em=float(right) if answerable else 0.0)
    sure = [r("sure", 0, True, 0.9), r("sure", 1, True, 0.8), r("sure", 2, False, 0.3, "unverified"),
            r("sure", 3, False, 0.1, "no_answer", answerable=False)]
    unsure = [r("unsure", 0, True, 0.1, "unverified"), r("unsure", 1, True, 0.2, "unverified"),
              r("unsure", 2, False, 0.9), r("unsure", 3, False, 0.8, answerable=False)]
    return EvalReport("qa", "mixed.jsonl", "jsonl", "offline", "all",
                      [MethodRun("sure", "offline", sure, 1.0), MethodRun("unsure", "offline", unsure, 1.0)]).as_dict()


def test_the_risk_coverage_curve_is_drawn_in_chromium(tmp_path):
    data = abstention_report()
    assert data["methods"]["sure"]["aurc"] < data["methods"]["unsure"]["aurc"]
    path = tmp_path / "abstention.html"
    path.write_text(render_report_html(data), encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    curves = marks(text, "risk-coverage")
    assert [c["data-method"] for c in curves] == ["sure", "unsure"]
    assert "no-answer P" in text and "AURC" in text
    tools = DevTools(path.as_uri(), tmp_path / "profile")
    try:
        wait_for_chart(tools, "chart-risk-coverage")
        shape = tools.js("(function(){var o={};document.querySelectorAll('polyline.curve').forEach(function(n){"
                         "var r=n.getBoundingClientRect();o[n.getAttribute('data-method')]={w:r.width,h:r.height,"
                         "n:n.points.numberOfItems};});return o;})()")
        # each curve spans the coverage axis and has a point per distinct confidence
        assert shape["sure"]["w"] > 300 and shape["sure"]["n"] == 4 and shape["sure"]["h"] > 10
        assert shape["unsure"]["w"] > 300 and shape["unsure"]["n"] == 4
        # at the first point (a quarter answered) sure is right and unsure wrong: sure's point is drawn lower
        first = tools.js("(function(){var o={};document.querySelectorAll('circle.point').forEach(function(n){"
                         "var m=n.getAttribute('data-method');if(!(m in o))o[m]=n.getBoundingClientRect().top;});"
                         "return o;})()")
        assert first["sure"] > first["unsure"]
        assert tools.js("performance.getEntriesByType('resource').length") == 0
    finally:
        tools.close()
