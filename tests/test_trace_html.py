"""The HTML view of one reasoning run, checked as text and in headless Chromium."""
from __future__ import annotations

import json
import os
import re
import select
import subprocess
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import pytest

from kgtool.reason.trace_html import (
    candidate_node_id,
    entity_node_id,
    render_trace_html,
    script_json,
    step_node_id,
)

INSTALL = "apt-get update && apt-get install -y chromium"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
# Would leave a mark in the DOM if the evidence ran as code, either by closing
# the JSON script element or as markup in the SVG, table or panel.
EVIL = (
    "</script><script>document.body.appendChild(Object.assign(document.createElement('div'),"
    "{id:'pwned'}))</script><img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">"
)


def cand(fid, rank, relation, tail, evidence, p, discarded=False, head="Al Gore"):
    return {"fact_id": fid, "rank": rank, "score": round(p * 3, 3), "p": p, "head": head,
            "relation": relation, "tail": tail, "evidence": evidence, "discarded": discarded}


def make_trace() -> dict:
    tipper = [cand("f4", 1, "employer", "Alliance for Climate Protection", "Tipper works at the Alliance.", 0.5,
                   head="Tipper Gore"),
              cand("f5", 2, "occupation", "photographer", "She is a photographer.", 0.5, head="Tipper Gore")]
    return {
        "run": {"id": "run-7", "method": "care", "agents": "offline", "status": "answered",
                "question": "Who founded the group that employs Al Gore's spouse?",
                "answer": "Al Gore & <friends>", "latency_ms": 12.3, "tokens": 0},
        "steps": [
            {"id": "step-1", "hop": 1, "attempt": 0, "query": "Who is the spouse of [ENT]?", "entity": "Al Gore",
             "state": "resolved", "neff": 1.02, "gamma": 1.5, "chosen": "f1", "generated_answer": None,
             "revised_as": None, "verdicts": [],
             "candidates": [cand("f1", 1, "spouse", "Tipper Gore", "Al Gore married Tipper Gore in 1970.", 0.97),
                            cand("f2", 2, "employer", "Apple Inc.", EVIL, 0.02),
                            cand("f3", 3, "member of party", "Democratic Party", "Gore is a Democrat.", 0.01, True)]},
            {"id": "step-2", "hop": 2, "attempt": 0, "query": "Who employs [ENT]?", "entity": "Tipper Gore",
             "state": "unresolved", "neff": 2.4, "gamma": 1.5, "chosen": "f4", "generated_answer": None,
             "revised_as": "step-3", "candidates": tipper,
             "verdicts": [{"valid": False, "error_type": "bridge_continuity", "failed_hop": 2,
                           "explanation": "the hop does not lead to the next one"}]},
            {"id": "step-3", "hop": 2, "attempt": 1, "query": "Who employs [ENT]?", "entity": "Tipper Gore",
             "state": "resolved", "neff": 1.1, "gamma": 1.5, "chosen": "f5", "generated_answer": None,
             "revised_as": None, "verdicts": [{"valid": True, "error_type": None, "explanation": "ok", "failed_hop": None}],
             "candidates": [dict(tipper[0], discarded=True), tipper[1]]},
            {"id": "step-4", "hop": 3, "attempt": 0, "query": "Who founded [ENT]?", "entity": "photographer",
             "state": "generated", "neff": None, "gamma": 1.5, "chosen": None, "generated_answer": "Al Gore",
             "revised_as": None, "candidates": [], "verdicts": []},
        ],
        "backtracks": [{"from_step": "step-2", "to_step": "step-1", "reason": "bridge broken"}],
    }


class Nodes(HTMLParser):
    """Collects elements with a data-node-id, the page's scripts and the details panel text."""

    def __init__(self):
        super().__init__()
        self.nodes: dict[str, list[str]] = {}
        self.scripts = 0
        self.details, self._in_details, self._depth = [], False, 0
        self.root: dict[str, str | None] = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "html":
            self.root = a
        if tag == "script":
            self.scripts += 1
        if "data-node-id" in a:
            self.nodes.setdefault(a["data-node-id"], []).append(a.get("class", ""))
        if a.get("id") == "details":
            self._in_details = True
        if self._in_details:
            self._depth += 1

    def handle_endtag(self, tag):
        if self._in_details:
            self._depth -= 1
            self._in_details = self._depth > 0

    def handle_data(self, data):
        if self._in_details:
            self.details.append(data)


def parse(page: str) -> Nodes:
    parser = Nodes()
    parser.feed(page)
    return parser


def find_chromium() -> str:
    path = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail(f"Chromium not found at {path}; install it with: {INSTALL} (or set CHROMIUM)")
    return path


def dump_dom(page: Path, tmp_path: Path, fragment: str = "") -> str:
    url = page.as_uri() + fragment
    done = subprocess.run([find_chromium(), *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", url],
                          capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("trace") / "run.html"
    path.write_text(render_trace_html(make_trace()), encoding="utf-8")
    return path


# ------------------------------------------------------------ without a browser


def test_every_trace_string_is_escaped():
    html = render_trace_html(make_trace())
    assert "<script>document" not in html and "<img src=x" not in html
    assert "Al Gore &amp; &lt;friends&gt;" in html
    # Exactly the page's two scripts: the JSON data and the viewer code.
    assert len(re.findall(r"<script\b", html)) == 2 and len(re.findall(r"</script", html)) == 2
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html


def test_script_json_cannot_close_its_element_and_round_trips():
    value = {"evidence": EVIL + " <!-- & \u2028"}
    text = script_json(value)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == value


def test_node_ids_classes_and_markings():
    trace = make_trace()
    nodes = parse(render_trace_html(trace)).nodes
    steps = trace["steps"]
    for step in steps:
        assert nodes[step_node_id(step)] == [nodes[step_node_id(step)][0]]
        assert "step" in nodes[step_node_id(step)][0].split()
        for c in step["candidates"]:
            assert len(nodes[candidate_node_id(step, c)]) == 1
    assert "rejected" in nodes["step-2"][0] and "rejected" not in nodes["step-1"][0]
    assert set(nodes["step-1::f1"][0].split()) >= {"candidate", "chosen"}
    assert set(nodes["step-2::f4"][0].split()) >= {"candidate", "chosen", "rejected"}
    assert "discarded" in nodes["step-1::f3"][0] and "discarded" in nodes["step-3::f4"][0]
    # Tipper Gore starts two steps but is one entity node.
    assert nodes[entity_node_id("Tipper Gore")] == ["node entity"]
    assert len([k for k, v in nodes.items() if "candidate" in v[0]]) == 7


def test_backtrack_and_revision_edges_are_drawn():
    html = render_trace_html(make_trace())
    assert html.count('class="edge backtrack"') == 1 and html.count('class="edge revised"') == 1
    assert "backtrack: bridge broken" in html


def test_empty_trace_renders():
    nodes = parse(render_trace_html({"run": {"id": "run-0"}, "steps": [], "backtracks": []})).nodes
    assert nodes == {}


# ------------------------------------------------------------------ in Chromium


def test_dom_after_scripts_ran(page, tmp_path):
    dom = dump_dom(page, tmp_path)
    parsed = parse(dom)
    assert parsed.root.get("data-ready") == "1"  # the viewer code ran
    trace = make_trace()
    want = {step_node_id(s) for s in trace["steps"]}
    want |= {candidate_node_id(s, c) for s in trace["steps"] for c in s["candidates"]}
    want |= {entity_node_id(n) for n in ("Al Gore", "Tipper Gore", "photographer")}
    assert set(parsed.nodes) == want and all(len(v) == 1 for v in parsed.nodes.values())
    assert 'id="run-answer">Al Gore &amp; &lt;friends&gt;<' in dom
    # The evidence is on the page as text and did not run.
    assert 'id="pwned"' not in dom and "data-pwned=" not in dom and parsed.scripts == 2
    assert "&lt;/script&gt;&lt;script&gt;document.body.appendChild" in dom


def test_details_panel_from_a_link(page, tmp_path):
    dom = dump_dom(page, tmp_path, "#node=" + quote("step-2::f4"))
    text = " ".join(parse(dom).details)
    assert "Tipper works at the Alliance." in text and "bridge_continuity" in text and "2.4" in text
    evil = " ".join(parse(dump_dom(page, tmp_path, "#node=" + quote("step-1::f2"))).details)
    assert "</script><script>document.body" in evil  # shown as text


class DevTools:
    """Chrome DevTools Protocol over --remote-debugging-pipe (fd 3 in, fd 4 out)."""

    def __init__(self, url: str, profile: Path):
        cmd_r, self._cmd_w = os.pipe()
        self._out_r, out_w = os.pipe()

        def wire():
            os.dup2(cmd_r, 3)
            os.dup2(out_w, 4)

        self.proc = subprocess.Popen(
            [find_chromium(), *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe", url],
            preexec_fn=wire, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(out_w)
        self._buf, self._id, self.session = b"", 0, None
        target = next(t for t in self.call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=target["targetId"], flatten=True)["sessionId"]

    def call(self, method: str, **params):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if self.session:
            msg["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + 30
        while True:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self._id:
                    assert "error" not in reply, reply
                    return reply["result"]
            assert time.monotonic() < deadline, f"no reply to {method}"
            if select.select([self._out_r], [], [], 1)[0]:
                self._buf += os.read(self._out_r, 1 << 16)

    def js(self, expression: str):
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def close(self):
        self.proc.kill()
        self.proc.wait(timeout=10)
        os.close(self._cmd_w)
        os.close(self._out_r)


def test_clicking_a_node_shows_its_details(page, tmp_path):
    tools = DevTools(page.as_uri(), tmp_path / "profile")
    try:
        deadline = time.monotonic() + 30
        while tools.js("document.documentElement.getAttribute('data-ready')") != "1":
            assert time.monotonic() < deadline, "the page never finished loading"
            time.sleep(0.1)
        for node_id, expected in [("step-1::f2", "</script><script>"), ("step-2", "bridge_continuity"),
                                  ("entity::Tipper Gore", "step-3")]:
            box = tools.js(
                f"(function(){{var n=document.querySelector('[data-node-id=\"{node_id}\"]');n.scrollIntoView();"
                "var r=n.getBoundingClientRect();return [r.left+r.width/2, r.top+r.height/2];})()")
            for kind in ("mousePressed", "mouseReleased"):  # a real pointer click at the node's centre
                tools.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)
            assert expected in tools.js("document.getElementById('details').textContent")
            assert tools.js("document.querySelector('.selected').getAttribute('data-node-id')") == node_id
        assert tools.js("!!document.getElementById('pwned') || document.body.hasAttribute('data-pwned')") is False
    finally:
        tools.close()
