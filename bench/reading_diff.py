"""Every reading the offline front end gives of every dev question, for a before/after diff without a database.

    .venv/bin/python bench/reading_diff.py --code ../before --out before.json
    .venv/bin/python bench/reading_diff.py --code ../after  --out after.json
    .venv/bin/python bench/reading_diff.py --compare before.json after.json [--show 20]

A change to how questions are read (kgtool.reason.reading, question, roles) moves answers only through
what the reading says. This reads every question of bench/dev_sets.py's sets and of ../shared/data's text
QA sets, in seconds and with no Neo4j, with the code of one checkout (--code, put first on sys.path):
the answer form and asking word of each question and, taking each of its words in turn as the topic
mention, the reading's answer type, its relation phrases, the role each gives the answer and the form a
phrase names. --compare counts what differs and shows examples of each kind, so a refactoring can be
checked to read alike and a rule's reach can be seen before any set is answered.
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_WORD = re.compile(r"\S+")


def _question_files() -> list[tuple[str, Path]]:
    spec = importlib.util.spec_from_file_location("dev_sets", ROOT / "bench" / "dev_sets.py")
    dev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dev)
    files = {(fmt, path) for _, _, evals in dev.SETS.values() for fmt, path in evals}
    files |= {("text", p) for p in sorted((dev.SHARED / "text-qa").glob("*-dev.json"))}
    return sorted(files)


def _questions(fmt: str, path: Path) -> list[str]:
    if path.suffix == ".txt":  # PathQuestion lines: question, answers, path, tab-separated
        return [line.split("\t")[0] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if path.suffix == ".jsonl":
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return [r["question"] for r in rows]
    data = json.loads(path.read_text(encoding="utf-8"))
    if fmt == "mquake":
        return [q for case in data for q in case.get("questions", [])]
    return [r["question"] for r in data]


def dump(code: Path) -> dict:
    sys.path.insert(0, str(code.resolve()))
    from kgtool.reason.question import read_question
    from kgtool.reason.reading.form import answer_form, asking_word, phrase_form
    from kgtool.reason.roles import segment_role

    questions = sorted({q for fmt, path in _question_files() for q in _questions(fmt, path)})
    out = {}
    for q in questions:
        form = answer_form(q)
        topics = {}
        for m in _WORD.finditer(q):
            topic = (m.start(), m.end())
            reading = read_question(q, topic)
            topics[f"{topic[0]}-{topic[1]}"] = {
                "answer_type": reading.answer_type,
                "phrases": [[seg.text, repr(segment_role(seg, topic)), repr(phrase_form(seg.text))]
                            for seg in reading.segments]}
        out[q] = {"form": repr(form), "wh": asking_word(q, form), "topics": topics}
    return out


def compare(before: dict, after: dict, show: int) -> None:
    counts: collections.Counter = collections.Counter()
    examples: dict[str, list] = collections.defaultdict(list)

    def differ(kind: str, question: str, what: str, old, new) -> None:
        counts[kind] += 1
        if len(examples[kind]) < show and (what, old, new) not in [e[1:] for e in examples[kind]]:
            examples[kind].append((question, what, old, new))

    for q in sorted(set(before) & set(after)):
        a, b = before[q], after[q]
        for key in ("form", "wh"):
            if a[key] != b[key]:
                differ(key, q, "", a[key], b[key])
        for topic, ta in a["topics"].items():
            tb = b["topics"].get(topic)
            if tb is None:
                continue
            if ta["answer_type"] != tb["answer_type"]:
                differ("answer type", q, topic, ta["answer_type"], tb["answer_type"])
            if [p[0] for p in ta["phrases"]] != [p[0] for p in tb["phrases"]]:
                differ("phrases", q, topic, [p[0] for p in ta["phrases"]], [p[0] for p in tb["phrases"]])
                continue
            for pa, pb in zip(ta["phrases"], tb["phrases"]):
                for i, kind in ((1, "role"), (2, "phrase form")):
                    if pa[i] != pb[i]:
                        differ(kind, q, pa[0], pa[i], pb[i])
    topics = sum(len(r["topics"]) for r in before.values())
    print(f"{len(before)} questions ({len(after)} after), {topics} (question, topic) readings")
    print("differences: " + (", ".join(f"{k} {v}" for k, v in counts.most_common()) or "none"))
    for kind, rows in examples.items():
        print(f"\n{kind} (first {len(rows)} distinct):")
        for q, what, old, new in rows:
            print(f"  {q}\n    {what + ': ' if what else ''}{old}\n    -> {new}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose reading is dumped")
    parser.add_argument("--out", type=Path, help="where the dump is written")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--show", type=int, default=10, help="examples shown per kind of difference")
    args = parser.parse_args()
    if args.compare:
        before, after = (json.loads(p.read_text(encoding="utf-8")) for p in args.compare)
        compare(before, after, args.show)
        return 0
    if not args.out:
        parser.error("--out is needed (or --compare)")
    readings = dump(args.code)
    args.out.write_text(json.dumps(readings, indent=0, sort_keys=True), encoding="utf-8")
    print(f"{len(readings)} questions read with {args.code}: {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
