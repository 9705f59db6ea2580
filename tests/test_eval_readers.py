"""QA benchmark readers (every format, bad lines named) and the perturbation draw, without a database."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgtool.errors import ConfigError, InputError
from kgtool.eval.perturb import PerturbSpec, plan_perturbation, wrong_sentence
from kgtool.eval.qa_data import FORMATS, guess_format, read_qa

TEXT_QA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "text-qa"
SAMPLE = Path(__file__).resolve().parent.parent / "ingest" / "sample"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_jsonl_fields_aliases_and_hops(tmp_path):
    path = write(tmp_path, "qa.jsonl", "\n".join([
        json.dumps({"id": "q1", "question": "Who performed Hey Jude?", "answers": ["Madonna"],
                    "aliases": ["Madonna Louise Ciccone"], "hops": 1}),
        "",
        json.dumps({"id": 7, "question": "Capital?", "answer": "Vancouver",
                    "hop_answers": ["Madonna", ["Canada", "CA"], "Vancouver"]}),
        json.dumps({"question": "No id here?", "answers": "x"}),
    ]) + "\n")
    items = read_qa(path, "jsonl").items
    assert [i.id for i in items] == ["q1", "7", "L4"]
    assert items[0].answers == ("Madonna", "Madonna Louise Ciccone") and items[0].hops == 1
    assert items[0].hop_answers is None and items[0].source == f"{path}:1"
    assert items[1].hops == 3 and items[1].hop_answers == (("Madonna",), ("Canada", "CA"), ("Vancouver",))
    assert items[2].answers == ("x",) and items[2].hops is None
    # the bundled sample questions read as they are
    assert len(read_qa(SAMPLE / "questions.jsonl").items) == 4


def test_jsonl_bad_lines_are_all_named(tmp_path):
    path = write(tmp_path, "bad.jsonl", "\n".join([
        json.dumps({"id": "ok", "question": "Fine?", "answers": ["yes"]}),
        "{not json",
        json.dumps({"id": "q3", "question": "", "answers": ["a"]}),
        json.dumps({"id": "q4", "question": "No gold?"}),
        json.dumps({"id": "q5", "question": "Hops?", "answers": ["a"], "hops": 0}),
        json.dumps({"id": "ok", "question": "Again?", "answers": ["b"]}),
        json.dumps(["a", "list"]),
        json.dumps({"id": "q8", "question": "Mismatch?", "answers": ["a"], "hops": 2, "hop_answers": ["a"]}),
    ]) + "\n")
    with pytest.raises(InputError) as err:
        read_qa(path, "jsonl")
    msg = str(err.value)
    assert "7 bad record(s), nothing evaluated" in msg
    for line, problem in [(2, "not valid JSON"), (3, '"question" must be a non-empty string'),
                          (4, "no gold answer"), (5, '"hops" must be a positive integer'),
                          (6, f"duplicate id 'ok' (first at {path}:1)"), (7, "expected a JSON object, got list"),
                          (8, '"hops" is 2 but "hop_answers" has 1 entries')]:
        assert f"{path}:{line}: {problem}" in msg, (line, msg)
    assert f"{path}:1:" not in msg


def test_hotpotqa_list_records_keep_their_line(tmp_path):
    records = [{"_id": "h1", "question": "Who?", "answer": "Ann", "type": "bridge"},
               {"_id": "h2", "question": "Same?", "answer": "yes", "type": "comparison"}]
    path = write(tmp_path, "hotpot.json", json.dumps(records, indent=2))
    items = read_qa(path, "hotpotqa").items
    assert [(i.id, i.answers, i.hops) for i in items] == [("h1", ("Ann",), 2), ("h2", ("yes",), 2)]
    assert items[0].source == f"{path}:2" and items[1].source == f"{path}:8"
    records[1].pop("answer")
    bad = write(tmp_path, "bad.json", json.dumps(records, indent=2))
    with pytest.raises(InputError, match=rf'{bad}:8: missing "answer"'):
        read_qa(bad, "hotpotqa")
    broken = write(tmp_path, "broken.json", '[\n  {"_id": "a", "question": "q", "answer": "x"},\n  {"_id": \n]')
    with pytest.raises(InputError, match=rf"{broken}:4: not valid JSON"):
        read_qa(broken, "hotpotqa")


def test_musique_hops_gold_hops_aliases_and_unanswerable(tmp_path):
    decomposition = [{"id": 1, "question": "Hello Love >> performer", "answer": "Hank Snow"},
                     {"id": 2, "question": "Where did #1 die?", "answer": "Tennessee"}]
    lines = [json.dumps({"id": "2hop__1", "question": "Where did the performer of Hello Love die?",
                         "answer": "Tennessee", "answer_aliases": ["TN"], "question_decomposition": decomposition,
                         "answerable": True}),
             json.dumps({"id": "2hop__1_u", "question": "Unanswerable twin?", "answer": "Tennessee",
                         "question_decomposition": decomposition, "answerable": False})]
    data = read_qa(write(tmp_path, "musique.jsonl", "\n".join(lines)), "musique")  # JSON lines work too
    assert len(data.items) == 1 and data.notes == ["1 unanswerable record(s) left out"]
    item = data.items[0]
    assert item.answers == ("Tennessee", "TN") and item.hops == 2
    assert item.hop_answers == (("Hank Snow",), ("Tennessee",))


def test_2wiki_hops_from_evidences(tmp_path):
    records = [
        {"_id": "w1", "question": "Who is the maternal grandfather of A?", "answer": "C", "type": "inference",
         "evidences": [["A", "mother", "B"], ["B", "father", "C"]]},
        {"_id": "w2", "question": "Which film came out first, X or Y?", "answer": "X", "type": "comparison",
         "evidences": [["X", "publication date", "1990"], ["Y", "publication date", "2001"]]},
        {"_id": "w3", "question": "No evidences?", "answer": "Z"},
    ]
    items = read_qa(write(tmp_path, "2wiki.json", json.dumps(records)), "2wiki").items
    assert [(i.hops, i.hop_answers) for i in items] == [(2, (("B",), ("C",))), (2, None), (None, None)]


def test_pathquestion_answers_aliases_and_path(tmp_path):
    path = write(tmp_path, "PQ-2H.txt", "\n".join([
        "what is the cause of death of the_wild_bunch's director\theart_attack(heart_attack/cardiac_arrest)\t"
        "the_wild_bunch#film__directed_by#sam_peckinpah#people__cause_of_death#heart_attack#<end>#heart_attack",
        "who is the spouse of x\tann/anne",
        "",
        "no tab on this line",
    ]) + "\n")
    with pytest.raises(InputError, match=rf"{path}:4: expected 'question<TAB>answers"):
        read_qa(path)  # .txt is PathQuestion
    path.write_text("\n".join(path.read_text().splitlines()[:2]) + "\n")
    first, second = read_qa(path).items
    assert first.id == "L1" and first.hops == 2
    assert set(first.answers) == {"heart_attack", "heart attack", "cardiac_arrest", "cardiac arrest"}
    assert first.hop_answers == (("sam_peckinpah", "sam peckinpah"), ("heart_attack", "heart attack"))
    assert second.answers == ("ann", "anne") and second.hops is None


def test_the_shared_samples_read_without_special_cases():
    hotpot = read_qa(TEXT_QA / "hotpotqa-dev.json", "hotpotqa")
    assert len(hotpot.items) == 53 and {i.hops for i in hotpot.items} == {2}
    assert all(i.question and i.answers for i in hotpot.items)
    musique = read_qa(TEXT_QA / "musique-dev.json", "musique", limit=10)
    assert len(musique.items) == 10
    assert all(i.hops == len(i.hop_answers) and 2 <= i.hops <= 4 for i in musique.items)


def test_format_from_extension_and_unknown_format(tmp_path):
    assert guess_format("a.jsonl") == "jsonl" and guess_format("PQ-3H.txt") == "pathquestion"
    with pytest.raises(ConfigError, match="pass --format"):
        guess_format("hotpot.json")
    with pytest.raises(ConfigError, match="unknown QA format 'squad'"):
        read_qa(write(tmp_path, "x.jsonl", "{}"), "squad")
    assert set(FORMATS) == {"jsonl", "hotpotqa", "musique", "2wiki", "pathquestion"}


# --- the perturbation draw (pure) ---------------------------------------------------------------
def test_perturb_spec_parsing():
    assert PerturbSpec.parse("drop=0.1,distract=0.2,seed=3") == PerturbSpec(0.1, 0.2, 3)
    assert PerturbSpec.parse({"drop": 0.5}) == PerturbSpec(0.5, 0.0, 0)
    assert PerturbSpec.parse(None) is None
    for bad, msg in [("drop=2", "between 0 and 1"), ("drop=x", "is not a number"), ("noise=0.1", "expected drop"),
                     ("seed=1.5", "is not a number")]:
        with pytest.raises(ConfigError, match=msg):
            PerturbSpec.parse(bad)


def _fact(fid, head, rel, tail, in_force=True):
    return {"fact_id": fid, "head_id": head.lower(), "head": head, "tail_id": tail.lower(), "tail": tail,
            "relation": rel, "relation_key": "rel:" + rel, "relation_id": None,
            "evidence": f"The {rel} of {head} is {tail}.", "in_force": in_force}


FACTS = [_fact(f"f{i}", f"P{i}", "citizenship", c) for i, c in enumerate(["Canada", "France", "Peru", "Chad"] * 5)]
FACTS += [_fact("g1", "Canada", "capital", "Ottawa", in_force=False), _fact("g2", "Canada", "capital", "Vancouver"),
          _fact("g3", "France", "capital", "Paris")]


def test_plan_perturbation_is_seeded_and_plausible():
    spec = PerturbSpec(drop=0.25, distract=0.3, seed=5)
    hidden, rows = plan_perturbation(FACTS, spec, "pert-x")
    in_force = [f for f in FACTS if f["in_force"]]
    assert len(hidden) == round(0.25 * len(in_force)) and "g1" not in hidden  # only facts in force
    assert len(rows) == round(0.3 * len(in_force))
    assert (hidden, rows) == plan_perturbation(list(reversed(FACTS)), spec, "pert-x")  # order-free, seeded
    assert plan_perturbation(FACTS, PerturbSpec(0.25, 0.3, 6), "pert-x")[0] != hidden
    triples = {(f["head_id"], f["relation_key"], f["tail_id"]) for f in in_force}
    tails = {}
    for f in FACTS:
        tails.setdefault(f["relation_key"], set()).add(f["tail_id"])
    for row in rows:
        assert row["id"].startswith("pert-x:d")
        assert row["tail_id"] in tails[row["relation_key"]]  # the tail of the same relation elsewhere
        assert (row["head_id"], row["relation_key"], row["tail_id"]) not in triples  # and really wrong
        source = next(f for f in FACTS if f["fact_id"] == row["imitates"])
        assert row["head_id"] == source["head_id"] and source["tail"] not in row["evidence"]
    assert len({(r["head_id"], r["relation_key"], r["tail_id"]) for r in rows}) == len(rows)
    # a superseded triple (the pre-edit answer) may come back as a distractor; one in force may not
    _, capitals = plan_perturbation([f for f in FACTS if f["fact_id"] in ("g1", "g2")], PerturbSpec(0, 1, 1), "p")
    assert [(r["head_id"], r["tail_id"], r["evidence"]) for r in capitals] == [
        ("canada", "ottawa", "The capital of Canada is Ottawa.")]


def test_wrong_sentence_swaps_the_tail():
    fact = _fact("f", "Hey Jude", "performer", "Madonna")
    fact["evidence"] = "Hey Jude was performed by MADONNA in 1968."
    assert wrong_sentence(fact, "The Beatles") == "Hey Jude was performed by The Beatles in 1968."
    fact["evidence"] = ""
    assert wrong_sentence(fact, "The Beatles") == "The performer of Hey Jude is The Beatles."
