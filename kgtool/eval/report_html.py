"""An evaluation report (the JSON of kgtool.eval.report) as one self-contained HTML page.

No scripts, no external CSS or fonts, no network: the charts are inline SVG
drawn here, so the page opens from file:// anywhere and can be archived with
the JSON. Every string from the data (questions, answers, method names) is
HTML-escaped.

Charts, each an <svg id="chart-...">, whose marks carry data-* attributes
(data-chart, data-method, data-metric / data-hops / data-bucket, data-value)
so they can be checked without reading pixels:
  accuracy    Acc, Hop-Acc, EM and F1 per method (grouped bars)
  hops        Acc per method for each hop count (grouped bars)
  latency     latency per question per method (box: p25-p75, median, whiskers min-max, p90 tick)
  backtracks  share of questions with 0, 1, 2 and 3+ backtracks per method (stacked bar), mean labelled
  risk-coverage  the risk-coverage curve per method (kgtool.eval.abstention): a polyline
              (class "curve", data-method, data-aurc) through its points (class "point",
              data-coverage, data-risk); the legend names each method with its AURC
"""
from __future__ import annotations

import html
from typing import Any

from kgtool.eval.metrics import percentile
from kgtool.eval.report import fallback_text, precision_text

PALETTE = ("#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5", "#9c6b4e")
BUCKET_COLORS = ("#3ca951", "#efb118", "#ff725c", "#a4243b")
BUCKETS = ("0", "1", "2", "3+")
W = 600  # chart width (pixels): two charts side by side on a laptop screen
CHAR_W = 6.6  # pixels per character of 11px text, a generous average
LEGEND_X, LEGEND_ROW = 20.0, 16  # where legend entries start, and the height of a legend row
LABEL_ANGLE = 35  # degrees: x-axis labels wider than their group are slanted


def _esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _num(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _color(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def text_width(text: str) -> float:
    """Estimated width of 11px chart text: generous, so labels placed by it never overlap."""
    return CHAR_W * len(text)


def _legend_layout(names: list[str]) -> list[tuple[float, int]]:
    """(x, row) of each legend entry: entries wrap onto a new row instead of running off the chart."""
    placed, x, row = [], LEGEND_X, 0
    for name in names:
        width = 16 + text_width(name)
        if x > LEGEND_X and x + width > W - 10:
            x, row = LEGEND_X, row + 1
        placed.append((x, row))
        x += width + 14
    return placed


def _legend_rows(names: list[str]) -> int:
    return 1 + max((row for _, row in _legend_layout(names)), default=0)


def _legend(names: list[str], colors: list[str], y: float) -> str:
    parts = []
    for name, color, (x, row) in zip(names, colors, _legend_layout(names)):
        ry = y + row * LEGEND_ROW
        parts.append(f'<rect x="{x:.1f}" y="{ry - 10:.1f}" width="12" height="12" fill="{color}"/>'
                     f'<text x="{x + 16:.1f}" y="{ry:.1f}" class="legend" data-legend="{_esc(name)}">'
                     f'{_esc(name)}</text>')
    return "".join(parts)


def nice_ticks(high: float, count: int = 4) -> list[float]:
    """Round axis ticks from 0 past `high`: steps of 1, 2, 2.5 or 5 times a power of ten."""
    import math

    if high <= 0:
        return [0.0, 1.0]
    raw = high / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    n = math.ceil(high / step - 1e-9)
    return [round(i * step, 10) for i in range(n + 1)]


def _label_room(names: list[str]) -> float:
    """Where a row chart's plot starts: after its longest row label (at least 150 px, at most half the chart)."""
    return min(W / 2, max(150.0, 16 + max((text_width(n) for n in names), default=0.0)))


def _tick_text(value: float) -> str:
    return f"{value:g}" if value < 1e6 else f"{value:,.0f}"


def _grouped_bars(chart: str, title: str, groups: list[str], series: list[str],
                  value_of, group_attr: str, series_attr: str, colors: list[str]) -> str:
    """Vertical bars on a 0..1 axis: one group per entry of `groups`, one bar per series in each.

    Group labels wider than their group are slanted (and the chart grows to hold them); the legend
    wraps onto as many rows as it needs, so every series is named.
    """
    import math

    top, left, plot_h = 30, 50, 170
    bottom = top + plot_h
    group_w = (W - left - 20) / max(1, len(groups))
    bar_w = min(36.0, (group_w - 16) / max(1, len(series)))
    widest = max((text_width(g) for g in groups), default=0.0)
    slanted = widest > group_w - 6
    angle = math.radians(LABEL_ANGLE)
    labels_h = (widest * math.sin(angle) + 12) if slanted else 16
    legend_y = bottom + labels_h + 22
    height = int(legend_y + (_legend_rows(series) - 1) * LEGEND_ROW + 12)
    out = [f'<svg id="chart-{chart}" class="chart" viewBox="0 0 {W} {height}" width="{W}" height="{height}" '
           f'role="img" aria-label="{_esc(title)}">',
           f'<text x="{left}" y="18" class="title">{_esc(title)}</text>']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = bottom - tick * plot_h
        out.append(f'<line x1="{left}" x2="{W - 20}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
                   f'<text x="{left - 6}" y="{y + 4:.1f}" class="axis" text-anchor="end">{tick:.2f}</text>')
    for gi, group in enumerate(groups):
        gx = left + gi * group_w + (group_w - bar_w * len(series)) / 2
        for si, name in enumerate(series):
            value = value_of(group, name)
            x = gx + si * bar_w
            if value is None:
                continue  # no such figure (e.g. Hop-Acc without gold hops): no bar, not a zero
            h = max(0.0, min(1.0, value)) * plot_h
            out.append(
                f'<rect class="bar" data-chart="{chart}" data-{group_attr}="{_esc(group)}" '
                f'data-{series_attr}="{_esc(name)}" data-value="{value:.4f}" x="{x + 1:.1f}" y="{bottom - h:.1f}" '
                f'width="{bar_w - 2:.1f}" height="{h:.2f}" fill="{colors[si]}">'
                f'<title>{_esc(group)} · {_esc(name)}: {value:.3f}</title></rect>')
        cx = left + gi * group_w + group_w / 2
        if slanted:
            out.append(f'<text x="{cx:.1f}" y="{bottom + 14}" class="axis group-label" text-anchor="end" '
                       f'transform="rotate(-{LABEL_ANGLE} {cx:.1f} {bottom + 14})">{_esc(group)}</text>')
        else:
            out.append(f'<text x="{cx:.1f}" y="{bottom + 16}" class="axis group-label" '
                       f'text-anchor="middle">{_esc(group)}</text>')
    out.append(_legend(series, colors, legend_y))
    out.append("</svg>")
    return "".join(out)


def _accuracy_chart(methods: dict) -> str:
    metrics = ["acc", "hop_acc", "em", "f1"]
    if all(s.get("hop_acc") is None for s in methods.values()):
        metrics.remove("hop_acc")
    labels = {"acc": "Acc", "hop_acc": "Hop-Acc", "em": "EM", "f1": "F1"}
    by_label = {labels[m]: m for m in metrics}
    colors = [_color(i) for i in range(len(metrics))]
    return _grouped_bars("accuracy", "Accuracy by method", list(methods), list(by_label),
                         lambda method, label: methods[method].get(by_label[label]), "method", "metric", colors)


def _hops_chart(methods: dict) -> str:
    hops = sorted({h for s in methods.values() for h in s.get("by_hops", {})}, key=int)
    if not hops:
        return '<p class="none" id="chart-hops">No hop counts in this data.</p>'
    names = list(methods)
    return _grouped_bars("hops", "Acc by hop count", [f"{h}" for h in hops], names,
                         lambda h, m: methods[m].get("by_hops", {}).get(h, {}).get("acc"), "hops", "method",
                         [_color(i) for i in range(len(names))])


def _latency_chart(methods: dict) -> str:
    rows = {m: [r["latency_ms"] for r in s.get("results", []) if r.get("latency_ms") is not None]
            for m, s in methods.items()}
    top, row_h, right = 40, 44, W - 30
    left = _label_room(list(rows))
    height = top + row_h * max(1, len(rows)) + 30
    ticks = nice_ticks(max((max(v) for v in rows.values() if v), default=1.0) or 1.0)
    hi = ticks[-1]

    def x(v: float) -> float:
        return left + (right - left) * v / hi

    out = [f'<svg id="chart-latency" class="chart" viewBox="0 0 {W} {height}" width="{W}" height="{height}" '
           'role="img" aria-label="Latency per question">',
           '<text x="10" y="18" class="title">Latency per question (ms): box p25–p75, median, '
           'whiskers min–max, tick p90</text>']
    for v in ticks:
        out.append(f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{top - 8}" y2="{height - 24}" class="grid"/>'
                   f'<text x="{x(v):.1f}" y="{height - 10}" class="axis tick" text-anchor="middle" '
                   f'data-value="{v:g}">{_tick_text(v)}</text>')
    for i, (method, values) in enumerate(rows.items()):
        cy = top + i * row_h + row_h / 2
        out.append(f'<text x="{left - 8}" y="{cy + 4:.1f}" class="axis method-label" '
                   f'text-anchor="end">{_esc(method)}</text>')
        if not values:
            continue
        q = {p: percentile(values, p) for p in (0, 25, 50, 75, 90, 100)}
        color = _color(i)
        attrs = " ".join(f'data-p{p}="{v:.2f}"' for p, v in q.items())
        out.append(
            f'<g class="box" data-chart="latency" data-method="{_esc(method)}" {attrs}>'
            f'<title>{_esc(method)}: median {q[50]:.1f} ms, p90 {q[90]:.1f} ms, {len(values)} questions</title>'
            f'<line x1="{x(q[0]):.1f}" x2="{x(q[100]):.1f}" y1="{cy:.1f}" y2="{cy:.1f}" class="whisker"/>'
            f'<rect class="iqr" x="{x(q[25]):.1f}" y="{cy - 11:.1f}" width="{max(1.0, x(q[75]) - x(q[25])):.1f}" '
            f'height="22" fill="{color}" fill-opacity="0.55" stroke="{color}"/>'
            f'<line class="median" x1="{x(q[50]):.1f}" x2="{x(q[50]):.1f}" y1="{cy - 11:.1f}" y2="{cy + 11:.1f}"/>'
            f'<line class="p90" x1="{x(q[90]):.1f}" x2="{x(q[90]):.1f}" y1="{cy - 7:.1f}" y2="{cy + 7:.1f}"/>'
            '</g>')
    out.append("</svg>")
    return "".join(out)


def _backtracks_chart(methods: dict) -> str:
    top, row_h, right = 40, 34, W - 120
    left = _label_room(list(methods))
    height = top + row_h * max(1, len(methods)) + 40
    out = [f'<svg id="chart-backtracks" class="chart" viewBox="0 0 {W} {height}" width="{W}" height="{height}" '
           'role="img" aria-label="Backtracks per question">',
           '<text x="10" y="18" class="title">Backtracks per question: share of questions with 0, 1, 2, 3+</text>']
    for i, (method, s) in enumerate(methods.items()):
        counts = [min(3, int(r.get("backtracks") or 0)) for r in s.get("results", [])]
        y = top + i * row_h
        out.append(f'<text x="{left - 8}" y="{y + 17}" class="axis method-label" '
                   f'text-anchor="end">{_esc(method)}</text>')
        x0 = float(left)
        for b, bucket in enumerate(BUCKETS):
            share = counts.count(b) / len(counts) if counts else 0.0
            w = share * (right - left)
            out.append(f'<rect class="segment" data-chart="backtracks" data-method="{_esc(method)}" '
                       f'data-bucket="{bucket}" data-value="{share:.4f}" x="{x0:.1f}" y="{y + 4}" width="{w:.2f}" '
                       f'height="20" fill="{BUCKET_COLORS[b]}"><title>{_esc(method)}: {share:.1%} of questions with '
                       f'{bucket} backtrack(s)</title></rect>')
            x0 += w
        mean = s.get("backtracks_per_question") or 0.0
        out.append(f'<text x="{right + 8}" y="{y + 18}" class="axis mean" data-method="{_esc(method)}" '
                   f'data-value="{mean:.4f}">mean {mean:.2f}</text>')
    out.append(_legend([f"{b} backtrack(s)" for b in BUCKETS], list(BUCKET_COLORS), height - 10))
    out.append("</svg>")
    return "".join(out)


def _risk_coverage_chart(methods: dict) -> str:
    """Risk (share wrong) against coverage (share answered, most confident first), one curve per method."""
    curves = {m: s.get("risk_coverage") or [] for m, s in methods.items()}
    if not any(curves.values()):
        return '<p class="none" id="chart-risk-coverage">No confidences in this report (an older kgtool).</p>'
    top, left, plot_w, plot_h = 30, 50, W - 80, 200
    bottom = top + plot_h
    names = [f"{m} (AURC {_num(methods[m].get('aurc'))})" for m in curves]
    legend_y = bottom + 44
    height = int(legend_y + (_legend_rows(names) - 1) * LEGEND_ROW + 12)
    out = [f'<svg id="chart-risk-coverage" class="chart" viewBox="0 0 {W} {height}" width="{W}" height="{height}" '
           'role="img" aria-label="Risk-coverage curve">',
           f'<text x="{left}" y="18" class="title">Risk (share wrong) by coverage, most confident answers first</text>']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y, x = bottom - tick * plot_h, left + tick * plot_w
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
                   f'<text x="{left - 6}" y="{y + 4:.1f}" class="axis" text-anchor="end">{tick:.2f}</text>'
                   f'<text x="{x:.1f}" y="{bottom + 16}" class="axis" text-anchor="middle">{tick:.2f}</text>')
    out.append(f'<text x="{left + plot_w / 2:.1f}" y="{bottom + 30}" class="axis" text-anchor="middle">'
               'coverage</text>')
    for i, (method, points) in enumerate(curves.items()):
        xy = [(left + c * plot_w, bottom - r * plot_h) for c, r in points]
        if len(xy) == 1:  # one confidence for every question: a flat step from no coverage to it
            xy.insert(0, (left, xy[0][1]))
        color = _color(i)
        out.append(f'<polyline class="curve" data-chart="risk-coverage" data-method="{_esc(method)}" '
                   f'data-aurc="{_num(methods[method].get("aurc"), 4)}" fill="none" stroke="{color}" '
                   f'stroke-width="2" points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in xy)}"/>')
        for c, r in points:
            out.append(f'<circle class="point" data-method="{_esc(method)}" data-coverage="{c:.4f}" '
                       f'data-risk="{r:.4f}" cx="{left + c * plot_w:.1f}" cy="{bottom - r * plot_h:.1f}" r="2.5" '
                       f'fill="{color}"><title>{_esc(method)}: coverage {c:.2f}, risk {r:.2f}</title></circle>')
    out.append(_legend(names, [_color(i) for i in range(len(names))], legend_y))
    out.append("</svg>")
    return "".join(out)


def _summary_table(methods: dict, kind: str) -> str:
    head = ["method", "cases" if kind == "mquake" else "questions", "Acc", "Hop-Acc", "EM", "F1", "Acc answerable",
            "answered prec.", "coverage", "no-answer P", "no-answer R", "AURC",
            "p50 ms", "p90 ms", "tokens/q", "backtracks/q", "failed", "fallbacks", "status"]
    rows = []
    for name, s in methods.items():
        cells = [name, str(s.get("cases", s.get("questions"))), _num(s.get("acc")), _num(s.get("hop_acc")),
                 _num(s.get("em")), _num(s.get("f1")), _num(s.get("acc_answerable")), precision_text(s),
                 _num(s.get("coverage")), _num(s.get("no_answer_precision")), _num(s.get("no_answer_recall")),
                 _num(s.get("aurc")), _num(s["latency_ms"]["p50"], 1),
                 _num(s["latency_ms"]["p90"], 1), _num(s.get("tokens_per_question"), 1),
                 _num(s.get("backtracks_per_question"), 2), str(s.get("failed", "-")), fallback_text(s),
                 ", ".join(f"{k} {v}" for k, v in (s.get("status") or {}).items())]
        rows.append(f'<tr data-method="{_esc(name)}">' + "".join(f"<td>{_esc(c)}</td>" for c in cells) + "</tr>")
    return ('<table id="summary"><thead><tr>' + "".join(f"<th>{_esc(h)}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _questions_table(methods: dict) -> str:
    names = list(methods)
    by_method = {m: {r["id"]: r for r in s.get("results", [])} for m, s in methods.items()}
    first = methods[names[0]].get("results", []) if names else []
    head = "".join(f"<th>{_esc(m)}</th>" for m in names)
    rows = []
    for r in first:
        cells = []
        for m in names:
            got = by_method[m].get(r["id"])
            if got is None:
                cells.append("<td></td>")
                continue
            mark = "right" if got.get("em") else "wrong"
            cells.append(f'<td class="{mark}" title="F1 {_num(got.get("f1"))}, {_esc(got.get("status"))}, '
                         f'run {_esc(got.get("run_id"))}">{_esc(got.get("prediction") or "(no answer)")}</td>')
        rows.append(f"<tr><td>{_esc(r['id'])}</td><td>{_esc(r['question'])}</td>"
                    f"<td>{_esc(' / '.join(r.get('gold') or []))}</td>{''.join(cells)}</tr>")
    return (f'<details><summary>Every question ({len(first)})</summary><table id="questions"><thead><tr>'
            f"<th>id</th><th>question</th><th>gold</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            "</details>")


def render_report_html(data: dict) -> str:
    """The page for one report dict (EvalReport.as_dict())."""
    methods = data.get("methods") or {}
    pert = data.get("perturbation")
    facts = [("data", data.get("data")), ("kind", data.get("kind")), ("format", data.get("format")),
             ("agents", data.get("agents")), ("scope", data.get("scope")), ("questions", data.get("questions"))]
    if pert:
        facts.append(("perturbation", f"{pert.get('id')}: drop {pert.get('drop')}, distract {pert.get('distract')}, "
                                      f"seed {pert.get('seed')} ({pert.get('hidden')} facts hidden, "
                                      f"{pert.get('added')} distractors added)"))
    for note in data.get("notes") or []:
        facts.append(("note", note))
    meta = "".join(f"<dt>{_esc(k)}</dt><dd>{_esc(v)}</dd>" for k, v in facts)
    body = (f"<h1>Evaluation: {_esc(', '.join(methods))}</h1><dl>{meta}</dl>"
            + _summary_table(methods, data.get("kind", ""))
            + '<div class="charts">' + _accuracy_chart(methods) + _hops_chart(methods) + _latency_chart(methods)
            + _backtracks_chart(methods) + _risk_coverage_chart(methods) + "</div>" + _questions_table(methods))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>kgtool evaluation: {_esc(data.get('data'))}</title>
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }}
dl {{ display: grid; grid-template-columns: max-content auto; gap: 2px 12px; }}
dt {{ font-weight: 600; }} dd {{ margin: 0; }}
table {{ border-collapse: collapse; margin: 12px 0; }}
th, td {{ border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }}
#summary td:not(:first-child):not(:last-child) {{ text-align: right; }}
td.right {{ background: #e3f4e1; }} td.wrong {{ background: #fbe4e1; }}
.charts {{ display: flex; flex-wrap: wrap; gap: 16px; }}
.chart {{ border: 1px solid #eee; background: #fff; }}
.chart .title {{ font-weight: 600; font-size: 13px; }}
.chart .axis, .chart .legend {{ font-size: 11px; fill: #444; }}
.chart .grid {{ stroke: #eee; }}
.chart .whisker {{ stroke: #666; }} .chart .median {{ stroke: #000; stroke-width: 2; }}
.chart .p90 {{ stroke: #a4243b; stroke-width: 2; }}
</style></head>
<body>{body}</body></html>
"""
