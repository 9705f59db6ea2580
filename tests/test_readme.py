"""The README's quick start is short and names files that exist; its runnable snippets (and those of
docs/*.md) run as written.

A bash or Python block right after a `<!-- runnable ... -->` line is run against
the test server, in a directory that holds the repository's `ingest/` and
`cypher/` under the same names (so files the commands write stay out of the
repository), with `kgtool` on PATH. Bash blocks stop at the first failing line.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import env_for

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
RUNNABLE = re.compile(r"<!-- runnable[^>]*-->\n```(bash|python)\n(.*?)```", re.S)
BLOCKS = RUNNABLE.findall(README)
# the longer guides in docs/ keep their examples runnable the same way
DOC_BLOCKS = [block for page in sorted((REPO / "docs").glob("*.md"))
              for block in RUNNABLE.findall(page.read_text(encoding="utf-8"))]


def _quick_start() -> tuple[int, list[str]]:
    lines = README.splitlines()
    start = lines.index("## Quick start")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("## "))
    return start, lines[start:end]


def test_the_quick_start_is_at_the_top_short_and_names_files_that_exist():
    start, section = _quick_start()
    assert start < 5, "the quick start is not at the top"
    while section and not section[-1].strip():
        section.pop()
    assert len(section) <= 15, f"the quick start has {len(section)} lines"
    code = "\n".join(section)
    paths = re.findall(r"(?<![\w/.])((?:\./)?[\w.-]+/[\w./-]+)", code)
    assert paths, "the quick start names no file"
    for path in paths:
        if path.startswith(".venv/"):
            continue  # made by ./scripts/demo, the quick start's first line
        assert (REPO / path).exists(), f"the quick start names {path}, which is not in the repository"


def test_the_readme_has_runnable_bash_and_python_blocks():
    assert {lang for lang, _ in BLOCKS} == {"bash", "python"}, BLOCKS


@pytest.mark.parametrize("block", range(len(BLOCKS + DOC_BLOCKS)))
def test_a_runnable_readme_block_runs_as_written(block, kg, neo4j_settings, tmp_path):
    lang, code = (BLOCKS + DOC_BLOCKS)[block]
    work = tmp_path / "work"
    work.mkdir()
    for name in ("ingest", "cypher"):
        (work / name).symlink_to(REPO / name)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "kgtool"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m kgtool.cli "$@"\n')
    shim.chmod(0o755)
    env = {**os.environ, **env_for(neo4j_settings), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "COLUMNS": "200"}
    for key in ("NEO4J_URI", "KGTOOL_CONFIG", "KGTOOL_LLM_BASE_URL", "OPENAI_BASE_URL"):
        env.pop(key, None)
    command = ["bash", "-e", "-o", "pipefail", "-c", code] if lang == "bash" else [sys.executable, "-c", code]
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, f"README {lang} block {block} failed:\n{code}\n--- output\n" \
                                 f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
