"""Word sets and hand-set numbers in the offline question front end, counted one fixed way (issue 44).

    .venv/bin/python bench/front_end_counts.py [--per-file] [--root DIR]

The front end is kgtool/reason/agents/offline/ and the reading modules of kgtool/reason/ (FRONT_END
below, plus kgtool/reason/reading/ when it exists). Counted, by walking each module's syntax tree:

- word sets: a set, tuple, list or frozenset literal (or a "a b c".split()) of two or more strings,
  each of them lower-case English words (letters, apostrophes, hyphens, spaces); the words in them;
- knobs: float literals other than 0, 0.5 and 1.

A set in the closed-class lexicon module (kgtool/reason/reading/words.py) or a value read from the
fitted OfflineConfig is reported apart: the issue allows those. Run it on two checkouts (--root) for
a before/after.
"""
from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

WORD = re.compile(r"^[a-z][a-z'\- ]*$")
FRONT_END = ["reason/agents/offline/*.py", "reason/reading/*.py", "reason/question.py", "reason/answer_kind.py",
             "reason/roles.py", "reason/explains.py", "reason/text_evidence.py", "reason/segmatch.py",
             "reason/relmatch.py", "reason/lexicon.py", "reason/kinds.py", "reason/taxonomy.py",
             "reason/relation_vocabulary.py", "reason/subquestions.py"]
# where hand-written closed-class English and fitted settings may live
ALLOWED = {"reason/reading/words.py", "reason/offline_config.py"}


def _strings(node) -> list[str] | None:
    if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        vals = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return vals if len(vals) == len(node.elts) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split" \
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
        return node.func.value.value.split()
    return None


def count(path: Path) -> tuple[int, int, int]:
    """(word sets, words in them, knobs) of one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside: set[int] = set()
    sets = words = knobs = 0
    for node in ast.walk(tree):
        vals = _strings(node)
        if vals and len(vals) >= 2 and all(WORD.match(v) for v in vals) and id(node) not in inside:
            sets += 1
            words += len(vals)
            inside.update(id(n) for n in ast.walk(node))
        if isinstance(node, ast.Constant) and isinstance(node.value, float) and node.value not in (0.0, 0.5, 1.0):
            knobs += 1
    return sets, words, knobs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--per-file", action="store_true")
    args = parser.parse_args()
    package = args.root / "kgtool"
    files = sorted({p for pattern in FRONT_END for p in package.glob(pattern)} |
                   {p for p in (package / a for a in ALLOWED) if p.exists()})
    totals = {"front end": [0, 0, 0, 0], "allowed homes": [0, 0, 0, 0]}
    for path in files:
        rel = path.relative_to(package).as_posix()
        sets, words, knobs = count(path)
        part = totals["allowed homes" if rel in ALLOWED else "front end"]
        part[0] += 1
        part[1] += sets
        part[2] += words
        part[3] += knobs
        if args.per_file and (sets or knobs):
            print(f"  {rel}: {sets} word sets ({words} words), {knobs} knobs")
    for name, (modules, sets, words, knobs) in totals.items():
        print(f"{name}: {modules} modules, {sets} word sets ({words} words), {knobs} knobs")


if __name__ == "__main__":
    main()
