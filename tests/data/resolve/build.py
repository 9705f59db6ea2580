"""Build the entity-resolution dev data from the MQuAKE dev cases (run from the repo root):

    python tests/data/resolve/build.py ../shared/data/mquake-hard-dev.json

Writes, next to this script:
- mquake_edits.jsonl: the first two requested rewrites of every case as kgtool JSONL
  edits, with Wikidata ids and the case's aliases (what an edit corpus carries);
- mquake_facts.tsv: the cases' `orig` triples as a plain fact file, names only, as a
  fact file would have them (the pre-edit chain, and hops 3-4 of the post-edit chain,
  whose edits are not in the edit corpus); every fifth entity is written under one of
  its aliases;
- pairs.jsonl: labelled entity pairs {a, b, same, kind}; each side is what resolution
  sees of an entity ({id, name, aliases, qid, facts: [[relation, object]]}). Positives
  pair a fact-file entity (name only, maybe an alias, respelled, with a typo) with the
  identified entity of the edit corpus; negatives pair it with the most similarly named
  *other* entity of the cases; hand_pairs.jsonl adds hand-written near misses (a father
  and son with one name, places that share a name).
"""
from __future__ import annotations

import hashlib
import json
import sys
import unicodedata
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def stable(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16)


def aliases_of(case: dict) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for key in ("single_hops", "new_single_hops"):
        for hop in case.get(key, []):
            for alias in hop.get("answer_alias", []):
                if alias != hop["answer"] and alias not in out[hop["answer"]]:
                    out[hop["answer"]].append(alias)
    for name, more in ((case["answer"], case.get("answer_alias", [])),
                       (case["new_answer"], case.get("new_answer_alias", []))):
        for alias in more:
            if alias != name and alias not in out[name]:
                out[name].append(alias)
    return out


def surface(name: str, aliases: dict[str, list[str]]) -> str:
    """How the fact file writes an entity: its name, or for every fifth entity a readable alias."""
    usable = [a for a in aliases.get(name, []) if len(a) >= 4 and a.isascii() and not a.isupper()]
    return usable[0] if usable and stable(name) % 5 == 0 else name


def main(path: str) -> None:
    cases = json.loads(Path(path).read_text(encoding="utf-8"))
    edits, facts = [], []
    qid_of: dict[str, str] = {}
    names: dict[str, str] = {}  # qid -> name
    all_aliases: dict[str, list[str]] = defaultdict(list)
    profile: dict[str, set[tuple[str, str]]] = defaultdict(set)  # qid -> (relation, object name)
    for case in cases:
        orig, aliases = case["orig"], aliases_of(case)
        for name, more in aliases.items():
            for a in more:
                if a not in all_aliases[name]:
                    all_aliases[name].append(a)
        for ids_key, labels_key in (("triples", "triples_labeled"), ("new_triples", "new_triples_labeled")):
            for ids, labels in zip(orig[ids_key], orig[labels_key]):
                qid_of[labels[0]], qid_of[labels[2]] = ids[0], ids[2]
                names[ids[0]], names[ids[2]] = labels[0], labels[2]
                profile[ids[0]].add((labels[1], labels[2]))
        labels_by_pid = {ids[1]: labels[1] for ids, labels in zip(orig["new_triples"], orig["new_triples_labeled"])}
        for j, rw in enumerate(case["requested_rewrite"][:2]):
            subject, new, old = rw["subject"], rw["target_new"], rw["target_true"]
            subject_id = orig["new_triples"][j][0] if orig["new_triples"][j][1] == rw["relation_id"] else qid_of.get(subject)
            edits.append({
                "id": f"rs:{case['case_id']}:{j}", "case_id": str(case["case_id"]), "subject": subject,
                "subject_id": subject_id, "relation": labels_by_pid.get(rw["relation_id"], rw["relation_id"]),
                "relation_id": rw["relation_id"], "object": new["str"], "object_id": new["id"],
                "old_object": old["str"], "old_object_id": old["id"],
                "subject_aliases": aliases.get(subject, []), "object_aliases": aliases.get(new["str"], []),
                "old_object_aliases": aliases.get(old["str"], []),
                "description": rw["prompt"].format(subject) + " " + new["str"] + ".",
                "question": rw["question"],
            })
        chosen = [tuple(t) for t in orig["triples_labeled"]] + [tuple(t) for t in orig["new_triples_labeled"][2:]]
        for h, r, t in chosen:
            facts.append((surface(h, aliases), r, surface(t, aliases)))
    facts = list(dict.fromkeys(facts))
    with (HERE / "mquake_edits.jsonl").open("w", encoding="utf-8") as out:
        for edit in edits:
            out.write(json.dumps(edit, ensure_ascii=False) + "\n")
    with (HERE / "mquake_facts.tsv").open("w", encoding="utf-8") as out:
        out.write("head\trelation\ttail\n")
        for h, r, t in facts:
            out.write(f"{h}\t{r}\t{t}\n")
    write_pairs(names, all_aliases, profile)
    print(f"{len(edits)} edits, {len(facts)} facts")


def _respell(name: str) -> str:
    """Lower case, accents and punctuation dropped: a careless fact file's spelling."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join("".join(c for c in text if c.isalnum() or c.isspace()).lower().split())


def _typo(name: str) -> str | None:
    """One letter dropped from the middle of the longest word (words of 8+ letters only)."""
    words = name.split()
    longest = max(range(len(words)), key=lambda i: len(words[i]))
    w = words[longest]
    if len(w) < 8 or not w.isalpha():
        return None
    words[longest] = w[: len(w) // 2] + w[len(w) // 2 + 1:]
    return " ".join(words)


def write_pairs(names: dict[str, str], aliases: dict[str, list[str]], profile: dict[str, set]) -> None:
    from rapidfuzz import fuzz, process

    qids = sorted(names)

    def identified(qid: str) -> dict:
        name = names[qid]
        return {"id": qid, "name": name, "qid": qid, "aliases": aliases.get(name, []),
                "facts": sorted(map(list, profile.get(qid, ())))}

    def plain(qid: str, written: str) -> dict:
        # the fact file's entity: the name it was written under, and the same facts (names only)
        return {"id": "name:" + written.lower(), "name": written, "aliases": [],
                "facts": sorted(map(list, profile.get(qid, ())))}

    pairs = []
    for qid in qids:
        name = names[qid]
        forms = [("same name", name), ("respelled", _respell(name))]
        usable = [a for a in aliases.get(name, []) if len(a) >= 4 and a.isascii()]
        if usable:
            forms.append(("alias", usable[stable(name) % len(usable)]))
        typo = _typo(name)
        if typo:
            forms.append(("typo", typo))
        words = name.split()
        if len(words) == 2 and all(w[:1].isupper() for w in words) and stable(name) % 3 == 0:
            forms.append(("reordered", f"{words[1]}, {words[0]}"))
        for kind, written in forms:
            if kind == "respelled" and written == name.lower():
                continue
            pairs.append({"a": plain(qid, written), "b": identified(qid), "same": True, "kind": kind})
    # negatives: each entity's most similarly named other entity (by name, not id)
    pool = [names[q] for q in qids]
    for i, qid in enumerate(qids):
        best = process.extract(names[qid], pool, scorer=fuzz.ratio, limit=6)
        taken = 0
        for other, score, j in best:
            # a name the data itself gives as the other's alias is no near miss (Wikidata says they may be one)
            known = {a.lower() for a in aliases.get(names[qid], [])} | {a.lower() for a in aliases.get(other, [])}
            if (j != i and other.lower() != names[qid].lower() and score >= 55 and taken < 3
                    and other.lower() not in known and names[qid].lower() not in known):
                pairs.append({"a": plain(qids[j], other), "b": identified(qid), "same": False,
                              "kind": "similar name"})
                taken += 1
    hand = HERE / "hand_pairs.jsonl"
    for line in hand.read_text(encoding="utf-8").splitlines():
        if line.strip():
            pairs.append(json.loads(line))
    with (HERE / "pairs.jsonl").open("w", encoding="utf-8") as out:
        for pair in pairs:
            out.write(json.dumps(pair, ensure_ascii=False) + "\n")
    counts = defaultdict(int)
    for p in pairs:
        counts[(p["same"], p["kind"])] += 1
    print(dict(counts))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/mquake-hard-dev.json")
