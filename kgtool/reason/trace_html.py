"""One reasoning run as a self-contained HTML page: graph, details panel, steps table.

The page needs no network (inline CSS, JS and SVG) and works from file://.
Every string from the trace is HTML-escaped, and the JS only writes text
(textContent), so evidence holding markup is shown, never run.

Graph node ids (``data-node-id``), stable across renders of the same trace:
  step       the step id
  candidate  "<step id>::<fact id>"
  entity     "entity::<entity name>"
Clicking a node, or opening the page at ``#node=<url-encoded node id>``,
shows that node's details in the side panel.
"""
from __future__ import annotations

import json
import re
from string import Template
from typing import Any

from kgtool.reason.subquestions import in_label_words
from kgtool.reason.trace_sections import esc as _esc
from kgtool.reason.trace_sections import num as _num
from kgtool.reason.trace_sections import sections_of_run

# Geometry of one step column (pixels).
COL_W, STEP_W, STEP_H, STEP_Y = 240, 200, 54, 100
ENT_Y, CAND_Y, CAND_W, CAND_H, CAND_GAP = 182, 220, 176, 40, 12
CAND_CHARS = 26  # characters of 12px text that fit a candidate box's width


def step_node_id(step: dict) -> str:
    return str(step.get("id"))


def candidate_node_id(step: dict, cand: dict) -> str:
    return f"{step.get('id')}::{cand.get('fact_id')}"


def entity_node_id(name: str) -> str:
    return f"entity::{name}"


def _short(value: Any, n: int = 28) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= n else text[: n - 1] + "…"


def _short_num(value: Any) -> str:
    """A figure for a small box: at most 6 characters, tiny values as <0.001."""
    if isinstance(value, float) and 0 < abs(value) < 0.001:
        return "<0.001" if value > 0 else "-0.000"
    return _short(_num(value), 6)


def _tail_and_p(cand: dict) -> str:
    """`→ tail · p 0.123` within a candidate box: the tail gives way, so p is always shown whole."""
    p = f" · p {_short_num(cand.get('p'))}"
    return f"→ {_short(cand.get('tail'), max(4, CAND_CHARS - 2 - len(p)))}{p}"


def by_score(candidates: list[dict]) -> list[dict]:
    """Candidates best first by the score p and N_eff come from; retrieval rank breaks ties.

    The stored rank is the retrieval order, which a method's judge (a selector
    or verifier that scores the candidates) may overturn, so listing by rank would show a lower score above a higher one.
    """
    return sorted(candidates, key=lambda c: (-(c.get("score") if isinstance(c.get("score"), (int, float)) else
                                               float("-inf")), c.get("rank") or 0))


def _css_word(value: Any) -> str:
    return re.sub(r"[^a-z0-9_-]", "", str(value or "").lower())


def _fact_label(c: dict) -> str:
    return f"{c.get('head', '')} — {c.get('relation', '')} → {c.get('tail', '')}"


def _rejected(step: dict) -> bool:
    return any(v.get("valid") is False for v in step.get("verdicts") or [])


def _step_label(step: dict) -> str:
    return f"hop {_num(step.get('hop'))} · attempt {_num(step.get('attempt'))}"


def _node(node_id: str, classes: str, label: str, shape: str, lines: list[tuple[float, float, str]],
          attr: str = "data-node-id", clip: tuple[str, float, float, float, float] | None = None) -> str:
    texts = "".join(f'<text x="{x}" y="{y}">{_esc(t)}</text>' for x, y, t in lines)
    if clip is not None:
        # text is cut at the box's edge whatever the font: a wide font must not spill into the next column
        clip_id, x, y, w, h = clip
        texts = (f'<clipPath id="{clip_id}"><rect x="{x}" y="{y}" width="{w}" height="{h}"/></clipPath>'
                 f'<g clip-path="url(#{clip_id})">{texts}</g>')
    return (
        f'<g class="{classes}" {attr}="{_esc(node_id)}" tabindex="0" role="button" '
        f'aria-label="{_esc(label)}"><title>{_esc(label)}</title>{shape}{texts}</g>'
    )


def _arc(x1: float, x2: float, lift: float, cls: str, label: str) -> str:
    # A quadratic arc peaks halfway to its control point; keep the peak inside the drawing.
    control = STEP_Y - 2 * min(lift, STEP_Y - 8)
    return (
        f'<path class="edge {cls}" d="M{x1},{STEP_Y} Q{(x1 + x2) / 2},{control} {x2},{STEP_Y}" '
        f'marker-end="url(#arrow-{cls})"><title>{_esc(label)}</title></path>'
    )


def _svg(steps: list[dict], backtracks: list[dict]) -> str:
    col = {step_node_id(s): i for i, s in enumerate(steps)}
    edges: list[str] = []
    nodes: list[str] = []
    tallest, drawn = 0, set()
    for i, step in enumerate(steps):
        x0 = 20 + i * COL_W
        sid = step_node_id(step)
        if i:  # the NEXT chain
            edges.append(f'<path class="edge next" d="M{x0 - COL_W + STEP_W},{STEP_Y + STEP_H / 2} '
                         f'H{x0}" marker-end="url(#arrow-next)"/>')
        state = _css_word(step.get("state"))
        cls = f"node step state-{state}" + (" rejected" if _rejected(step) else "")
        nodes.append(_node(sid, cls, f"{_step_label(step)}: {in_label_words(step.get('query')) or ''}",
                           f'<rect x="{x0}" y="{STEP_Y}" width="{STEP_W}" height="{STEP_H}" rx="8"/>',
                           [(x0 + 10, STEP_Y + 20, _step_label(step)),
                            (x0 + 10, STEP_Y + 40, f"{step.get('state') or '?'} · N_eff {_num(step.get('neff'))}")]))
        if step.get("entity"):
            name = str(step["entity"])
            edges.append(f'<path class="edge from" d="M{x0 + 110},{ENT_Y - 14} V{STEP_Y + STEP_H}" '
                         'marker-end="url(#arrow-next)"/>')
            # An entity drawn again (a retried hop) refers to the first drawing's node.
            attr = "data-ref-id" if entity_node_id(name) in drawn else "data-node-id"
            drawn.add(entity_node_id(name))
            nodes.append(_node(entity_node_id(name), "node entity", f"entity: {name}",
                               f'<ellipse cx="{x0 + 110}" cy="{ENT_Y}" rx="84" ry="14"/>',
                               [(x0 + 110, ENT_Y + 4, _short(name, 24))], attr))
        cands = by_score(step.get("candidates") or [])
        for k, cand in enumerate(cands):
            y = CAND_Y + k * (CAND_H + CAND_GAP)
            chosen = cand.get("fact_id") is not None and cand.get("fact_id") == step.get("chosen")
            cls = "node candidate" + (" chosen" if chosen else "") + (" discarded" if cand.get("discarded") else "")
            cls += " rejected" if chosen and _rejected(step) else ""
            edges.append(f'<path class="edge hang" d="M{x0 + 10},{STEP_Y + STEP_H} V{y + CAND_H / 2} H{x0 + 24}"/>')
            tooltip = f"{_fact_label(cand)}\n{cand.get('evidence') or ''}".strip()
            nodes.append(_node(candidate_node_id(step, cand), cls, tooltip,
                               f'<rect x="{x0 + 24}" y="{y}" width="{CAND_W}" height="{CAND_H}" rx="5"/>',
                               [(x0 + 32, y + 16, _short(f"#{_num(cand.get('rank'))} {cand.get('relation') or ''}",
                                                         CAND_CHARS)),
                                (x0 + 32, y + 32, _tail_and_p(cand))],
                               clip=(f"clip-{i}-{k}", x0 + 26, y + 1, CAND_W - 4, CAND_H - 2)))
            tallest = max(tallest, y + CAND_H)
        if step.get("revised_as") in col:
            x2 = 20 + col[step["revised_as"]] * COL_W
            edges.append(_arc(x0 + 140, x2 + 140, 30 + 8 * abs(col[step["revised_as"]] - i), "revised",
                              "revised as"))
    for bt in backtracks:
        if bt.get("from_step") in col and bt.get("to_step") in col:
            a, b = col[bt["from_step"]], col[bt["to_step"]]
            edges.append(_arc(20 + a * COL_W + 60, 20 + b * COL_W + 60, 50 + 10 * abs(a - b), "backtrack",
                              f"backtrack: {bt.get('reason', '')}"))
    width, height = 40 + max(len(steps), 1) * COL_W, max(tallest, STEP_Y + STEP_H + 100) + 20
    markers = "".join(
        f'<marker id="arrow-{c}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        f'orient="auto-start-reverse"><path class="head-{c}" d="M0,0 L10,5 L0,10 z"/></marker>'
        for c in ("next", "revised", "backtrack"))
    return (f'<svg id="graph" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="reasoning graph">'
            f'<defs>{markers}</defs>{"".join(edges)}{"".join(nodes)}</svg>')


def _details(steps: list[dict], backtracks: list[dict]) -> dict[str, dict]:
    """What the side panel shows for each node id."""
    out: dict[str, dict] = {}
    for step in steps:
        sid, verdicts = step_node_id(step), step.get("verdicts") or []
        cands = step.get("candidates") or []
        chosen = next((c for c in cands if c.get("fact_id") == step.get("chosen")), None)
        moves = [f"backtrack {b.get('from_step')} → {b.get('to_step')}: {b.get('reason', '')}"
                 for b in backtracks if sid in (b.get("from_step"), b.get("to_step"))]
        out[sid] = {"title": f"Step {_step_label(step)}", "verdicts": verdicts, "fields": [
            ["query", step.get("query")], ["entity", step.get("entity")], ["state", step.get("state")],
            ["N_eff", _num(step.get("neff"))], ["gamma", _num(step.get("gamma"))],
            ["candidates", str(len(cands))], ["chosen", _fact_label(chosen) if chosen else step.get("chosen")],
            ["generated answer", step.get("generated_answer")], ["revised as", step.get("revised_as")],
            *[["move", m] for m in moves], ["step id", sid]]}
        if step.get("entity"):
            ent = out.setdefault(entity_node_id(str(step["entity"])),
                                 {"title": f"Entity {step['entity']}", "fields": [], "verdicts": []})
            ent["fields"].append(["starts", f"{_step_label(step)} ({sid})"])
        for c in cands:
            is_chosen = chosen is c
            out[candidate_node_id(step, c)] = {
                "title": f"Candidate #{_num(c.get('rank'))} (retrieval rank): {_fact_label(c)}",
                "verdicts": verdicts if is_chosen else [],
                "fields": [["score", _num(c.get("score"))], ["p", _num(c.get("p"))],
                           ["step N_eff", f"{_num(step.get('neff'))} (gamma {_num(step.get('gamma'))})"],
                           ["head", c.get("head")], ["relation", c.get("relation")], ["tail", c.get("tail")],
                           ["evidence", c.get("evidence")], ["chosen", "yes" if is_chosen else "no"],
                           ["discarded", "yes" if c.get("discarded") else "no"], ["fact id", c.get("fact_id")]]}
    for d in out.values():  # the panel shows strings only
        d["fields"] = [[k, "—" if v is None else str(v)] for k, v in d["fields"]]
    return out


def _verdict_text(v: dict) -> str:
    ok = "valid" if v.get("valid") else f"invalid ({v.get('error_type') or '?'}, hop {_num(v.get('failed_hop'))})"
    return f"{ok}: {v.get('explanation') or ''}"


def _table(steps: list[dict]) -> str:
    head = "".join(f"<th scope='col'>{h}</th>" for h in
                   ("hop", "attempt", "query", "entity", "state", "N_eff", "chosen fact", "candidates", "verdicts"))
    rows = []
    for s in steps:
        chosen = next((c for c in s.get("candidates") or [] if c.get("fact_id") == s.get("chosen")), None)
        cells = [_num(s.get("hop")), _num(s.get("attempt")), in_label_words(s.get("query")), s.get("entity"),
                 s.get("state"),
                 _num(s.get("neff")), _fact_label(chosen) if chosen else (s.get("generated_answer") or "—"),
                 str(len(s.get("candidates") or [])), "; ".join(_verdict_text(v) for v in s.get("verdicts") or [])]
        rows.append(f'<tr data-step-row="{_esc(step_node_id(s))}">' + "".join(f"<td>{_esc(c)}</td>" for c in cells)
                    + "</tr>")
    return f"<table id='steps'><caption>Steps</caption><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no '<', '>' or '&' survive literally."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def render_trace_html(trace: dict, methods=None) -> str:
    """The whole page for one run (see the module docstring for the node ids); the sections its method
    declares (looked up in `methods`, a Registry; None: the built-in one) follow the steps table."""
    run, steps, backtracks = trace.get("run") or {}, trace.get("steps") or [], trace.get("backtracks") or []
    facts = [("question", run.get("question")), ("answer", run.get("answer")), ("status", run.get("status")),
             ("method", run.get("method")), ("agents", run.get("agents")),
             ("latency", f"{_num(run.get('latency_ms'))} ms"), ("tokens", _num(run.get("tokens")))]
    return _PAGE.substitute(
        title=_esc(f"kgtool run {run.get('id', '')}"),
        run_id=_esc(run.get("id")),
        facts="".join(f'<dt>{k}</dt><dd id="run-{k}">{_esc(v)}</dd>' for k, v in facts),
        svg=_svg(steps, backtracks),
        table=_table(steps) + "".join(section.html(trace.get(section.key) or [])
                                      for section in sections_of_run(run, methods)),
        data=script_json({"trace": trace, "details": _details(steps, backtracks)}),
    )


_PAGE = Template("""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>$title</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222}
header{padding:12px 20px;border-bottom:1px solid #ddd} h1{font-size:18px;margin:0 0 6px}
header dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0} dt{font-weight:600}
main{display:flex;align-items:flex-start} #canvas{flex:1;overflow:auto;padding:10px}
aside{width:340px;border-left:1px solid #ddd;padding:10px 14px;position:sticky;top:0;max-height:100vh;overflow:auto}
aside dd{margin:0 0 6px;white-space:pre-wrap;word-break:break-word}
.legend span{display:inline-block;margin-right:14px} .sw{width:12px;height:12px;display:inline-block;vertical-align:middle;margin-right:4px}
svg text{font-size:12px;pointer-events:none} .entity text{text-anchor:middle} .node{cursor:pointer} .node:focus{outline:none}
.step rect{fill:#eef3fb;stroke:#4a6fa5;stroke-width:1.5} .step.state-resolved rect{fill:#e7f5ea}
.step.rejected rect{stroke:#c0392b;stroke-width:2.5} .entity ellipse{fill:#fff8e1;stroke:#b7950b}
.candidate rect{fill:#fff;stroke:#999} .candidate.chosen rect{fill:#d4f1dc;stroke:#1e8449;stroke-width:2.5}
.candidate.rejected rect{stroke:#c0392b;stroke-dasharray:6 3} .candidate.discarded{opacity:.45}
.candidate.discarded rect{stroke-dasharray:3 3} .selected rect,.selected ellipse{stroke:#000!important;stroke-width:3!important}
.edge{fill:none;stroke:#888;stroke-width:1.3} .edge.backtrack{stroke:#d35400;stroke-width:2.2}
.edge.revised{stroke:#8e44ad;stroke-dasharray:6 4;stroke-width:2} .head-next{fill:#888} .head-revised{fill:#8e44ad} .head-backtrack{fill:#d35400}
table{border-collapse:collapse;margin:16px 20px} td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
</style></head><body>
<header><h1>Reasoning run <code>$run_id</code></h1><dl>$facts</dl></header>
<main><div id="canvas"><p class="legend"><span><i class="sw" style="background:#d4f1dc"></i>chosen fact</span>
<span><i class="sw" style="border:2px dashed #999"></i>discarded</span><span><i class="sw" style="border:2px solid #c0392b"></i>rejected by critic</span>
<span><i class="sw" style="background:#d35400"></i>backtrack</span><span><i class="sw" style="background:#8e44ad"></i>revised as</span></p>
$svg</div>
<aside aria-live="polite"><h2>Details</h2><div id="details"><p>Click a node to see its scores, evidence and verdicts.</p></div></aside></main>
$table
<script type="application/json" id="trace-data">$data</script>
<script>
(function () {
  var data = JSON.parse(document.getElementById("trace-data").textContent);
  var panel = document.getElementById("details"), nodes = {}, current = null;
  function el(tag, text) { var e = document.createElement(tag); if (text != null) e.textContent = text; return e; }
  function show(id) {
    var d = data.details[id];
    if (!d) return;
    if (current) current.classList.remove("selected");
    current = nodes[id] || null;
    if (current) current.classList.add("selected");
    panel.replaceChildren(el("h3", d.title));
    var dl = el("dl");
    d.fields.forEach(function (f) { dl.appendChild(el("dt", f[0])); dl.appendChild(el("dd", f[1])); });
    panel.appendChild(dl);
    if (d.verdicts.length) {
      panel.appendChild(el("h4", "Critic verdicts"));
      var ul = el("ul");
      d.verdicts.forEach(function (v) {
        ul.appendChild(el("li", (v.valid ? "valid" : "invalid (" + (v.error_type || "?") + ", hop " +
          (v.failed_hop == null ? "?" : v.failed_hop) + ")") + ": " + (v.explanation || "")));
      });
      panel.appendChild(ul);
    }
  }
  document.querySelectorAll("[data-node-id],[data-ref-id]").forEach(function (n) {
    var id = n.getAttribute("data-node-id") || n.getAttribute("data-ref-id");
    if (!nodes[id] || n.hasAttribute("data-node-id")) nodes[id] = n;
    n.addEventListener("click", function () { show(id); location.hash = "node=" + encodeURIComponent(id); });
    n.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); show(id); }
    });
  });
  function fromHash() {
    var m = /^#node=(.*)$$/.exec(location.hash);
    if (m) show(decodeURIComponent(m[1]));
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
  document.documentElement.setAttribute("data-ready", "1");
})();
</script></body></html>
""")
