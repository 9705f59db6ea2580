"""Readers: MQuAKE JSON and the JSONL edit format, including bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgtool.errors import InputError
from kgtool.ingest.readers import MAX_NAME_CHARS, MAX_TEXT_CHARS, read_edits, relation_labels, validate_edit
from kgtool.ingest.records import EditRecord

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

DEV = SHARED_DATA / "mquake-hard-dev.json"


# --------------------------------------------------------------------------- MQuAKE dev file


@pytest.fixture(scope="module")
def dev():
    return read_edits(DEV)


@pytest.fixture(scope="module")
def dev_raw():
    return json.loads(DEV.read_text(encoding="utf-8"))


def test_dev_counts(dev):
    assert len(dev.edits) == 392
    assert len(dev.cases) == 98
    assert dev.bad == []
    assert len({e.id for e in dev.edits}) == 392


def test_dev_edits_mirror_requested_rewrites(dev, dev_raw):
    by_id = {e.id: e for e in dev.edits}
    for index, case in enumerate(dev_raw):
        for j, rewrite in enumerate(case["requested_rewrite"]):
            edit = by_id[f"mquake:{case['case_id']}:{j}"]
            new = rewrite["target_new"]["str"]
            expected = rewrite["prompt"].format(rewrite["subject"]) + " " + new
            if not new.endswith("."):
                expected += "."
            assert edit.description == expected
            assert edit.subject == rewrite["subject"]
            assert edit.object == new and edit.object_id == rewrite["target_new"]["id"]
            assert edit.old_object == rewrite["target_true"]["str"]
            assert edit.old_object_id == rewrite["target_true"]["id"]
            assert edit.relation_id == rewrite["relation_id"]
            assert edit.relation.strip(), edit
            assert edit.case_id == str(case["case_id"])
            assert edit.source == f"{DEV}:case[{index}].requested_rewrite[{j}]"
            # the subject's Q-id comes from orig.edit_triples
            assert edit.subject_id == case["orig"]["edit_triples"][j][0]


def test_dev_description_example(dev):
    first = next(e for e in dev.edits if e.id == "mquake:7437:0")
    assert first.description == "Alliance for Climate Protection was founded by Herbert Hoover."
    assert first.relation == "founded by"
    assert "President Hoover" in first.object_aliases
    assert "Al Gore Jr." in first.old_object_aliases


def test_relation_labels_come_from_the_file(dev, dev_raw):
    labels = relation_labels(dev_raw)
    assert labels["P112"] == "founded by"
    assert labels["P26"] == "spouse"
    assert all(e.relation == "founded by" for e in dev.edits if e.relation_id == "P112")


def test_dev_base_facts_are_the_pre_edit_chain(dev, dev_raw):
    assert len(dev.base_facts) == sum(len(c["orig"]["triples"]) for c in dev_raw)
    pre_edit = {tuple(t) for c in dev_raw for t in c["orig"]["triples"]}
    post_only = {tuple(t) for c in dev_raw for t in c["orig"]["new_triples"]} - pre_edit
    facts = {(f.subject_id, f.relation_id, f.object_id) for f in dev.base_facts}
    assert facts == pre_edit
    assert not facts & post_only  # the gold post-edit chain does not leak in
    fact = dev.base_facts[0]
    assert (fact.subject, fact.relation, fact.object) == ("Alliance for Climate Protection", "founded by", "Al Gore")
    assert fact.case_id == "7437" and fact.source.endswith("case[0].orig.triples[0]")


def test_dev_cases(dev, dev_raw):
    case = dev.cases[0]
    assert case.case_id == "7437"
    assert len(case.questions) == 3
    assert case.new_answer == "German" and "German language" in case.new_answer_aliases
    assert [h.answer for h in case.hops] == ["Herbert Hoover", "Susan Roces", "Poland", "German"]
    assert case.edit_ids == tuple(f"mquake:7437:{j}" for j in range(4))
    assert all(len(c.hops) == 4 and len(c.edit_ids) == 4 for c in dev.cases)


def test_ids_are_stable_across_reads(dev):
    again = read_edits(DEV)
    assert [e.id for e in again.edits] == [e.id for e in dev.edits]
    assert again.edits == dev.edits


# --------------------------------------------------------------------------- MQuAKE synthetic


def _case(case_id, subject="Snark Hunt", rel="P9999", label="zorbled by", new="Ozzy", old="Quux"):
    return {
        "case_id": case_id,
        "requested_rewrite": [
            {
                "prompt": "{} was zorbled by",
                "relation_id": rel,
                "target_new": {"str": new, "id": "Q2"},
                "target_true": {"str": old, "id": "Q3"},
                "subject": subject,
                "question": f"Who zorbled {subject}?",
            }
        ],
        "questions": [f"Who zorbled {subject}?"],
        "new_answer": new,
        "new_answer_alias": ["Oz"],
        "new_single_hops": [{"question": "q", "cloze": "c", "answer": new, "answer_alias": ["Oz"]}],
        "orig": {
            "triples": [["Q1", rel, "Q3"]],
            "triples_labeled": [[subject, label, old]],
            "new_triples": [["Q1", rel, "Q2"]],
            "new_triples_labeled": [[subject, label, new]],
            "edit_triples": [["Q1", rel, "Q2"]],
        },
    }


def test_labels_learned_across_the_whole_file(tmp_path):
    # case 2 carries no labelled triple for P7777; case 1 does, so the label still applies
    first = _case(1, rel="P7777", label="glorped into")
    second = _case(2, rel="P7777", label="glorped into")
    second["orig"] = {}
    path = tmp_path / "m.json"
    path.write_text(json.dumps([first, second]))
    result = read_edits(path)
    assert [e.relation for e in result.edits] == ["glorped into", "glorped into"]
    assert result.edits[1].subject_id is None  # no ids in that case, and none invented


def test_mquake_bad_records_are_reported_and_the_rest_loads(tmp_path):
    bad_edit = _case(3)
    del bad_edit["requested_rewrite"][0]["subject"]
    no_rewrites = _case(4)
    no_rewrites["requested_rewrite"] = "oops"
    cases = [_case(1), "not a case", bad_edit, no_rewrites, _case(1)]
    path = tmp_path / "m.json"
    path.write_text(json.dumps(cases))
    result = read_edits(path)
    assert [e.id for e in result.edits] == ["mquake:1:0"]
    assert [str(b) for b in result.bad] == [
        f"{path}:case[1]: expected a JSON object, got a string",
        f"{path}:case[2].requested_rewrite[0]: missing required field 'subject'",
        f"{path}:case[3]: field 'requested_rewrite' must be a non-empty list of edits",
        f"{path}:case[4]: duplicate case_id '1' (first used by case[0])",
    ]


def test_mquake_file_not_json_raises_naming_the_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("this is not json")
    with pytest.raises(InputError, match=r"broken\.json: not valid JSON"):
        read_edits(path)


def test_mquake_file_not_a_list_raises(tmp_path):
    path = tmp_path / "obj.json"
    path.write_text('{"case_id": 1}')
    with pytest.raises(InputError, match=r"obj\.json: expected a JSON list of MQuAKE cases, got an object"):
        read_edits(path)


# --------------------------------------------------------------------------- JSONL


def _line(**fields) -> str:
    return json.dumps(fields, ensure_ascii=False)


CYPHER = '"}) DETACH DELETE n //'
UNICODE = "Ｈｅｙ Ｊｕｄｅ 🎸 Zoë Ω\u200d—ﬁ"


def test_jsonl_good_and_bad_lines(tmp_path):
    good = dict(
        subject="Hey Jude", relation="performer", object="Madonna", description="Hey Jude was performed by Madonna."
    )
    lines = [
        _line(id="e1", old_object="The Beatles", object_aliases=["Madonna Louise Ciccone"], case_id=7, **good),  # 1
        "{not json",  # 2
        _line(id="e2", subject="X", relation="r", description="d"),  # 3 no object
        _line(id="e3", subject="", relation="r", object="o", description="d"),  # 4 empty
        _line(id="e4", subject="X", relation="r", object="o", description="x" * (MAX_TEXT_CHARS + 1)),  # 5
        "",  # 6 blank lines are fine
        _line(id="e5", subject=UNICODE, relation="r", object=CYPHER, description=f"{UNICODE} r {CYPHER}."),  # 7
        _line(id="e6", subject=["X"], relation="r", object="o", description="d"),  # 8 wrong type
        _line(id="e1", **good),  # 9 duplicate id
        "[1, 2]",  # 10
        _line(id="e7", subject="X", relation="r", object="o", description="d", object_aliases="Oz"),  # 11
        _line(id=8, subject="Y" * (MAX_NAME_CHARS + 1), relation="r", object="o", description="d"),  # 12
        _line(id=9, subject="X", relation="r", object="o", description="d", subject_id="Q42"),  # 13
    ]
    path = tmp_path / "edits.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = read_edits(path)

    assert [e.id for e in result.edits] == ["e1", "e5", "9"]
    first = result.edits[0]
    assert first.source == f"{path}:1"
    assert first.old_object == "The Beatles" and first.object_aliases == ("Madonna Louise Ciccone",)
    assert first.case_id == "7"
    odd = result.edits[1]
    assert odd.subject == UNICODE and odd.object == CYPHER  # verbatim, not escaped or normalised
    assert odd.description == f"{UNICODE} r {CYPHER}."
    assert result.edits[2].subject_id == "Q42"

    messages = [str(b) for b in result.bad]
    assert messages[0].startswith(f"{path}:2: malformed JSON: Expecting property name enclosed in double quotes")
    assert messages[1:] == [
        f"{path}:3: missing required field 'object'",
        f"{path}:4: field 'subject' is empty",
        f"{path}:5: field 'description' is 10,001 characters long (limit 10,000)",
        f"{path}:8: field 'subject' must be a string, got a list",
        f"{path}:9: duplicate id 'e1' (first used on line 1)",
        f"{path}:10: expected a JSON object, got a list",
        f"{path}:11: field 'object_aliases' must be a list of strings, got a string",
        f"{path}:12: field 'subject' is 1,001 characters long (limit 1,000)",
    ]


def test_jsonl_invalid_utf8_and_lone_surrogate(tmp_path):
    path = tmp_path / "bytes.jsonl"
    ok = _line(id="a", subject="S", relation="r", object="o", description="d").encode()
    surrogate = b'{"id": "b", "subject": "\\ud800", "relation": "r", "object": "o", "description": "d"}'
    path.write_bytes(ok + b"\n" + b'{"id": "\xff"}\n' + surrogate + b"\n")
    result = read_edits(path)
    assert [e.id for e in result.edits] == ["a"]
    assert str(result.bad[0]).startswith(f"{path}:2: not valid UTF-8")
    assert (
        str(result.bad[1]) == f"{path}:3: field 'subject' contains an unpaired surrogate and cannot be stored as UTF-8"
    )


def test_format_by_extension_or_explicit(tmp_path):
    path = tmp_path / "edits.txt"
    path.write_text(_line(id="a", subject="S", relation="r", object="o", description="d") + "\n")
    with pytest.raises(InputError, match="cannot tell the format"):
        read_edits(path)
    assert [e.id for e in read_edits(path, format="jsonl").edits] == ["a"]
    with pytest.raises(InputError, match="unknown edit format 'csv'"):
        read_edits(path, format="csv")
    with pytest.raises(InputError, match="no such file"):
        read_edits(tmp_path / "missing.jsonl")


def test_validate_edit():
    edit = EditRecord(id="x", subject="S", relation="r", object="o", description="S r o.")
    assert validate_edit(edit) is None
    assert (
        validate_edit(EditRecord(id="x", subject="S", relation=" ", object="o", description="d"))
        == "field 'relation' is empty"
    )
    assert (
        validate_edit(
            EditRecord(id="x", subject="S", relation="r", object="o", description="d", subject_aliases=("a", 3))
        )
        == "field 'subject_aliases'[1] must be a string, got a number"
    )


def test_the_quick_checks_of_surrogate_free_text_agree_with_the_detailed_ones():
    """A line without a surrogate escape is checked by a quicker path (readers._edit_problem with
    surrogates=False); on such values it must find exactly what the detailed checks find."""
    import random

    from kgtool.ingest.readers import _aliases_problem, _edit_problem

    rng = random.Random(7)
    texts = [None, "", " ", "\t\n", "x", " padded ", "é", "a" * MAX_NAME_CHARS, "a" * (MAX_NAME_CHARS + 1),
             "b" * MAX_TEXT_CHARS, "b" * (MAX_TEXT_CHARS + 1), 5, 2.5, True, ["list"], {"a": 1}]
    alias_lists = [(), ("a",), ("a", ""), ("a", 3), ("a" * (MAX_NAME_CHARS + 1),), [None], "not a list", None]
    fields = [f for f in EditRecord.__slots__ if f != "source"]
    for _ in range(5_000):
        # mostly fine values, so that later fields get checked too (the first problem is reported)
        values = {f: (("a",) if f.endswith("_aliases") else "fine") if rng.random() < 0.85
                  else rng.choice(alias_lists if f.endswith("_aliases") else texts) for f in fields}
        edit = EditRecord(**values)
        assert _edit_problem(edit, surrogates=False) == _edit_problem(edit, surrogates=True), values
    for aliases in alias_lists:
        assert _aliases_problem("object_aliases", aliases, surrogates=False) == \
            _aliases_problem("object_aliases", aliases, surrogates=True)
