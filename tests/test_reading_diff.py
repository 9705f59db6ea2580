"""bench/reading_diff.py: the front end's readings of a set of questions, dumped and compared."""
import copy
import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _module():
    spec = importlib.util.spec_from_file_location("reading_diff", REPO / "bench" / "reading_diff.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_dump_reads_every_question_and_a_comparison_names_what_moved(monkeypatch, capsys):
    diff = _module()
    roles = REPO / "tests" / "data" / "roles" / "questions.jsonl"
    monkeypatch.setattr(diff, "_question_files", lambda: [("qa", roles)])
    before = diff.dump(REPO)
    assert before and all(r["topics"] for r in before.values())
    question = next(q for q, r in before.items() if any(t["phrases"] for t in r["topics"].values()))

    diff.compare(before, before, show=5)
    assert "differences: none" in capsys.readouterr().out

    after = copy.deepcopy(before)
    after[question]["form"] = "AnswerForm(kind='date')"
    topic = next(t for t in after[question]["topics"].values() if t["phrases"])
    topic["phrases"][0][1] = "PhraseRole(answer='patient')"
    diff.compare(before, after, show=5)
    out = capsys.readouterr().out
    assert "differences: form 1, role 1" in out or "differences: role 1, form 1" in out
    assert question in out and "-> AnswerForm(kind='date')" in out
