"""MQuAKE JSON cases as edits, base facts and gold hops (the format is described in kgtool.ingest.readers)."""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable

from kgtool.errors import InputError
from kgtool.ingest.records import (
    BadRecord,
    BaseFact,
    Case,
    EditRecord,
    GoldHop,
    ReadResult,
)

from kgtool.ingest.edit_checks import _text_problem, _type_name, validate_edit


def read_mquake(path: str | Path) -> ReadResult:
    """Read a MQuAKE JSON file (a list of cases)."""
    path = Path(path)
    cases = _load_json_list(path)
    labels = relation_labels(cases)
    result = ReadResult()
    seen_case_ids: dict[str, int] = {}
    for index, case in enumerate(cases):
        where = f"{path}:case[{index}]"
        if not isinstance(case, dict):
            result.bad.append(BadRecord(where, f"expected a JSON object, got {_type_name(case)}"))
            continue
        case_id = _case_id(case, index)
        if case_id in seen_case_ids:
            result.bad.append(
                BadRecord(where, f"duplicate case_id {case_id!r} (first used by case[{seen_case_ids[case_id]}])")
            )
            continue
        seen_case_ids[case_id] = index
        _read_case(case, case_id, where, labels, result)
    return result


def _load_json_list(path: Path) -> list:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); is this a MQuAKE JSON file?"
        ) from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
            "a MQuAKE file is one JSON list of cases (for one edit per line use a .jsonl file)"
        ) from exc
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of MQuAKE cases, got {_type_name(data)}")
    return data


def _case_id(case: dict, index: int) -> str:
    raw = case.get("case_id")
    if isinstance(raw, (str, int)) and not isinstance(raw, bool) and str(raw).strip():
        return str(raw)
    # files without case ids still get ids that are stable for the same file
    return f"record{index}"


def _triple_pairs(orig: Any, ids_key: str, labels_key: str) -> Iterable[tuple[list, list]]:
    """Aligned (id triple, labelled triple) pairs, skipping malformed entries."""
    if not isinstance(orig, dict):
        return ()
    ids, labelled = orig.get(ids_key), orig.get(labels_key)
    if not isinstance(ids, list) or not isinstance(labelled, list) or len(ids) != len(labelled):
        return ()
    return [
        (ids_t, labels_t)
        for ids_t, labels_t in zip(ids, labelled)
        if _is_str_triple(ids_t) and _is_str_triple(labels_t)
    ]


def _is_str_triple(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 3 and all(isinstance(x, str) for x in value)


def relation_labels(cases: list) -> dict[str, str]:
    """Map relation id -> label, learned from the labelled triples of every case.

    Each case's `orig.triples` line up with `orig.triples_labeled` (and
    `new_triples` with `new_triples_labeled`), so the middle elements pair a
    property id with its label. When a file is inconsistent, the most frequent
    label wins (ties broken alphabetically, so the result is deterministic).
    """
    counts: dict[str, Counter] = defaultdict(Counter)
    for case in cases:
        if not isinstance(case, dict):
            continue
        orig = case.get("orig")
        for ids_key, labels_key in (("triples", "triples_labeled"), ("new_triples", "new_triples_labeled")):
            for id_triple, label_triple in _triple_pairs(orig, ids_key, labels_key):
                if label_triple[1].strip():
                    counts[id_triple[1]][label_triple[1]] += 1
    return {rid: min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0] for rid, c in counts.items()}


def _alias_map(case: dict) -> dict[str, tuple[str, ...]]:
    """Entity name -> aliases, from the answers of the case's single hops."""
    aliases: dict[str, list[str]] = defaultdict(list)

    def add(name: Any, more: Any) -> None:
        if not isinstance(name, str) or not isinstance(more, list):
            return
        bucket = aliases[name]
        for alias in more:
            if isinstance(alias, str) and alias.strip() and alias != name and alias not in bucket:
                bucket.append(alias)

    for key in ("single_hops", "new_single_hops"):
        hops = case.get(key)
        if isinstance(hops, list):
            for hop in hops:
                if isinstance(hop, dict):
                    add(hop.get("answer"), hop.get("answer_alias"))
    add(case.get("answer"), case.get("answer_alias"))
    add(case.get("new_answer"), case.get("new_answer_alias"))
    return {name: tuple(values) for name, values in aliases.items()}


def _name_to_qid(orig: Any) -> dict[str, str]:
    """Entity name -> Wikidata id, from the labelled chains of one case."""
    names: dict[str, str] = {}
    for ids_key, labels_key in (("triples", "triples_labeled"), ("new_triples", "new_triples_labeled")):
        for id_triple, label_triple in _triple_pairs(orig, ids_key, labels_key):
            names.setdefault(label_triple[0], id_triple[0])
            names.setdefault(label_triple[2], id_triple[2])
    return names


def _read_case(case: dict, case_id: str, where: str, labels: dict[str, str], result: ReadResult) -> None:
    rewrites = case.get("requested_rewrite")
    if not isinstance(rewrites, list) or not rewrites:
        result.bad.append(BadRecord(where, "field 'requested_rewrite' must be a non-empty list of edits"))
        return
    orig = case.get("orig")
    aliases = _alias_map(case)
    qids = _name_to_qid(orig)
    edit_triples = orig.get("edit_triples") if isinstance(orig, dict) else None
    edit_ids: list[str] = []
    for j, rewrite in enumerate(rewrites):
        edit_where = f"{where}.requested_rewrite[{j}]"
        edit = _edit_from_rewrite(rewrite, j, case_id, edit_where, labels, aliases, qids, edit_triples)
        if isinstance(edit, str):
            result.bad.append(BadRecord(edit_where, edit))
            continue
        result.edits.append(edit)
        edit_ids.append(edit.id)
    _read_base_facts(orig, case_id, where, labels, aliases, result)
    case_record = _case_record(case, case_id, where, edit_ids)
    if isinstance(case_record, str):
        result.bad.append(BadRecord(where, case_record))
    else:
        result.cases.append(case_record)


def _target(rewrite: dict, key: str) -> tuple[Any, Any]:
    target = rewrite.get(key)
    if target is None:
        return None, None
    if not isinstance(target, dict):
        return target, None
    return target.get("str"), target.get("id")


def _edit_from_rewrite(
    rewrite: Any,
    j: int,
    case_id: str,
    where: str,
    labels: dict[str, str],
    aliases: dict[str, tuple[str, ...]],
    qids: dict[str, str],
    edit_triples: Any,
) -> EditRecord | str:
    if not isinstance(rewrite, dict):
        return f"expected a JSON object, got {_type_name(rewrite)}"
    if not isinstance(rewrite.get("target_new"), dict):
        return "field 'target_new' must be an object with 'str' and 'id'"
    prompt, subject, relation_id = rewrite.get("prompt"), rewrite.get("subject"), rewrite.get("relation_id")
    new_obj, new_id = _target(rewrite, "target_new")
    old_obj, old_id = _target(rewrite, "target_true")
    for name, value in (("prompt", prompt), ("subject", subject), ("target_new.str", new_obj)):
        problem = _text_problem(name, value, required=True)
        if problem:
            return problem
    if "{}" not in prompt:
        return "field 'prompt' has no '{}' placeholder for the subject"
    if relation_id is not None and not isinstance(relation_id, str):
        return f"field 'relation_id' must be a string, got {_type_name(relation_id)}"
    relation = labels.get(relation_id or "") or _label_from_prompt(prompt)
    description = _describe(prompt, subject, new_obj)
    edit = EditRecord(
        id=f"mquake:{case_id}:{j}",
        subject=subject,
        relation=relation,
        object=new_obj,
        description=description,
        relation_id=relation_id,
        old_object=old_obj if isinstance(old_obj, str) else None,
        subject_id=_subject_qid(j, relation_id, new_id, edit_triples) or qids.get(subject),
        object_id=new_id if isinstance(new_id, str) else None,
        old_object_id=old_id if isinstance(old_id, str) else None,
        subject_aliases=aliases.get(subject, ()),
        object_aliases=aliases.get(new_obj, ()),
        old_object_aliases=aliases.get(old_obj, ()) if isinstance(old_obj, str) else (),
        case_id=case_id,
        prompt=prompt,
        question=rewrite.get("question") if isinstance(rewrite.get("question"), str) else None,
        source=where,
    )
    return validate_edit(edit) or edit


def _describe(prompt: str, subject: str, obj: str) -> str:
    """The edit as one sentence: the filled cloze prompt followed by the new object."""
    sentence = f"{prompt.replace('{}', subject)} {obj}"
    return sentence if sentence.endswith((".", "!", "?")) else sentence + "."


def _label_from_prompt(prompt: str) -> str:
    # only used when no labelled triple in the file names this relation
    return " ".join(prompt.replace("{}", " ").split()).lower()


def _subject_qid(j: int, relation_id: Any, new_id: Any, edit_triples: Any) -> str | None:
    """The subject's Wikidata id from `orig.edit_triples`, which list (s, r, o*) per edit."""
    if not isinstance(edit_triples, list):
        return None
    if j < len(edit_triples) and _is_str_triple(edit_triples[j]):
        s, r, o = edit_triples[j]
        if r == relation_id and o == new_id:
            return s
    matches = {t[0] for t in edit_triples if _is_str_triple(t) and t[1] == relation_id and t[2] == new_id}
    return matches.pop() if len(matches) == 1 else None


def _read_base_facts(
    orig: Any, case_id: str, where: str, labels: dict[str, str], aliases: dict[str, tuple[str, ...]], result: ReadResult
) -> None:
    """Base facts come from the pre-edit chain only: the post-edit chain is the gold answer path."""
    if not isinstance(orig, dict) or "triples" not in orig:
        return
    ids, labelled = orig.get("triples"), orig.get("triples_labeled")
    if not isinstance(ids, list) or not isinstance(labelled, list) or len(ids) != len(labelled):
        result.bad.append(
            BadRecord(f"{where}.orig", "'triples' and 'triples_labeled' must be lists of the same length")
        )
        return
    for k, (id_triple, label_triple) in enumerate(zip(ids, labelled)):
        fact_where = f"{where}.orig.triples[{k}]"
        if not _is_str_triple(id_triple) or not _is_str_triple(label_triple):
            result.bad.append(BadRecord(fact_where, "expected [subject, relation, object] string triples"))
            continue
        s, r, o = label_triple
        problem = next(
            (
                p
                for p in (
                    _text_problem(n, v, required=True) for n, v in zip(("subject", "relation", "object"), (s, r, o))
                )
                if p
            ),
            None,
        )
        if problem:
            result.bad.append(BadRecord(fact_where, problem))
            continue
        result.base_facts.append(
            BaseFact(
                subject=s,
                relation=labels.get(id_triple[1], r),
                object=o,
                relation_id=id_triple[1],
                subject_id=id_triple[0],
                object_id=id_triple[2],
                case_id=case_id,
                source=fact_where,
                subject_aliases=aliases.get(s, ()),
                object_aliases=aliases.get(o, ()),
            )
        )


def _case_record(case: dict, case_id: str, where: str, edit_ids: list[str]) -> Case | str:
    questions = case.get("questions")
    if not isinstance(questions, list) or not all(isinstance(q, str) for q in questions):
        return "field 'questions' must be a list of strings"
    new_answer = case.get("new_answer")
    if not isinstance(new_answer, str):
        return f"field 'new_answer' must be a string, got {_type_name(new_answer)}"
    hops = []
    for k, hop in enumerate(case.get("new_single_hops") or []):
        if (
            not isinstance(hop, dict)
            or not isinstance(hop.get("question"), str)
            or not isinstance(hop.get("answer"), str)
        ):
            return f"new_single_hops[{k}] must be an object with string 'question' and 'answer'"
        hops.append(
            GoldHop(
                question=hop["question"],
                answer=hop["answer"],
                aliases=_str_tuple(hop.get("answer_alias")),
                cloze=hop.get("cloze") if isinstance(hop.get("cloze"), str) else None,
            )
        )
    return Case(
        case_id=case_id,
        questions=tuple(questions),
        new_answer=new_answer,
        new_answer_aliases=_str_tuple(case.get("new_answer_alias")),
        hops=tuple(hops),
        edit_ids=tuple(edit_ids),
        source=where,
    )


def _str_tuple(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(v for v in value if isinstance(v, str))
