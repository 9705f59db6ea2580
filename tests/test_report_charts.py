"""The evaluation page's charts name every method legibly and use round axis ticks.

Geometry is checked on the SVG itself with a generous estimate of text width
(6.6 px per character of 11px text): every method's label must lie inside its
chart and labels on one axis must not overlap. The data has the registry's
seven methods, long names included, and latencies whose maximum is not round.
"""
from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

from kgtool.eval.report_html import render_report_html

CHAR_W = 6.6
METHODS = ["bm25-reader", "c2rag", "care", "reagent", "reagent-no-backtrack", "safe", "vog"]


def _report(names=METHODS) -> dict:
    methods = {}
    for i, name in enumerate(names):
        results = [{"id": f"q{k}", "question": f"question {k}", "gold": ["x"], "prediction": "x", "em": 1.0,
                    "f1": 1.0, "status": "answered", "run_id": f"run-{i}-{k}", "backtracks": k % 4,
                    "latency_ms": 37.3 + 1723.9 * ((i * 5 + k) % 7) / 6} for k in range(6)]
        methods[name] = {"questions": 6, "acc": 0.1 * i, "hop_acc": 0.05 * i, "em": 0.1 * i, "f1": 0.12 * i,
                         "by_hops": {"2": {"acc": 0.1 * i}, "3": {"acc": 0.05 * i}, "4": {"acc": 0.02 * i}},
                         "latency_ms": {"p50": 100.0, "p90": 200.0}, "tokens_per_question": 0.0,
                         "backtracks_per_question": 1.5, "status": {"answered": 6}, "results": results}
    return {"data": "dev.json", "kind": "mquake", "questions": 6, "methods": methods, "notes": [],
            "perturbation": None}


def _charts(page: str) -> dict[str, ET.Element]:
    charts = {}
    for svg in re.findall(r"<svg id=\"chart-.*?</svg>", page, flags=re.S):
        root = ET.fromstring(svg)
        charts[root.get("id").removeprefix("chart-")] = root
    return charts


def _box(root: ET.Element) -> tuple[float, float]:
    _, _, w, h = (float(v) for v in root.get("viewBox").split())
    return w, h


def _extent(text: ET.Element) -> tuple[float, float, float, float]:
    """x0, x1, y0, y1 of a text element's estimated box (rotation about its anchor included)."""
    x, y = float(text.get("x")), float(text.get("y"))
    width = CHAR_W * len("".join(text.itertext()))
    anchor = text.get("text-anchor") or "start"
    start = {"start": 0.0, "middle": -width / 2, "end": -width}[anchor]
    angle = 0.0
    rotate = re.match(r"rotate\((-?[\d.]+)", text.get("transform") or "")
    if rotate:
        angle = math.radians(float(rotate.group(1)))
    ends = [(x + d * math.cos(angle), y + d * math.sin(angle)) for d in (start, start + width)]
    xs, ys = [p[0] for p in ends], [p[1] for p in ends]
    return min(xs), max(xs), min(ys) - 11, max(ys) + 2


def _texts(root: ET.Element, names) -> dict[str, ET.Element]:
    found = {}
    for text in root.iter("{http://www.w3.org/2000/svg}text") if root.tag.startswith("{") else root.iter("text"):
        content = "".join(text.itertext())
        if content in names:
            found.setdefault(content, text)
    return found


@pytest.mark.parametrize("chart", ["hops", "accuracy", "latency", "backtracks"])
def test_every_method_is_named_inside_each_chart(chart):
    root = _charts(render_report_html(_report()))[chart]
    width, height = _box(root)
    labels = _texts(root, METHODS)
    assert sorted(labels) == sorted(METHODS), f"{chart}: methods not named: {set(METHODS) - set(labels)}"
    for name, text in labels.items():
        x0, x1, y0, y1 = _extent(text)
        assert 0 <= x0 and x1 <= width and 0 <= y0 and y1 <= height, \
            f"{chart}: the label {name!r} runs outside the chart ({x0:.0f}..{x1:.0f} of {width:.0f} wide, " \
            f"{y0:.0f}..{y1:.0f} of {height:.0f} high)"


@pytest.mark.parametrize("chart", ["hops", "accuracy", "latency", "backtracks"])
def test_method_labels_do_not_overlap(chart):
    root = _charts(render_report_html(_report()))[chart]
    labels = list(_texts(root, METHODS).values())
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if a.get("transform") and b.get("transform"):
                # parallel slanted labels: apart when their anchors are further apart than a line of text
                dx = abs(float(a.get("x")) - float(b.get("x")))
                assert dx * math.sin(math.radians(35)) >= 11, f"{chart}: slanted labels too close"
                continue
            ax0, ax1, ay0, ay1 = _extent(a)
            bx0, bx1, by0, by1 = _extent(b)
            overlap = ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1
            assert not overlap, f"{chart}: {''.join(a.itertext())!r} overlaps {''.join(b.itertext())!r}"


def test_latency_ticks_are_round_and_cover_the_slowest_answer():
    data = _report()
    root = _charts(render_report_html(data))["latency"]
    ticks = []
    for text in root.iter("text"):
        content = "".join(text.itertext()).replace(",", "")
        if re.fullmatch(r"\d+(\.\d+)?", content):
            ticks.append(float(content))
    assert len(ticks) >= 3, ticks
    step = ticks[1] - ticks[0]
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert any(math.isclose(mantissa, m) for m in (1, 2, 2.5, 5)), f"tick step {step} is not round: {ticks}"
    assert all(math.isclose(t, i * step) for i, t in enumerate(ticks)), ticks
    slowest = max(r["latency_ms"] for s in data["methods"].values() for r in s["results"])
    assert ticks[-1] >= slowest > ticks[-2]
