"""C2RAG's sufficiency check on many-valued relations: the stated values of one relation are one hop.

N_eff (the paper's Eq. 8) counts the candidates competing for a constraint: a pool that
spreads its probability over several candidates is ambiguous, and the constraint goes to
textual recovery. Several facts of one relation with the same subject (a person's two
parents, several children) are not competing when the graph states them all and nothing
contests them: every one of them holds, so the question's hop is settled in the graph, by
its set of values. Counting them apart would send every many-valued hop to the text.

Which candidates are such values is read from the graph (`c2rag/settled_values`): facts
whose subject is the constraint's known end, stated by an edit or a fact file, that no
edit conflict touches. An edit and the old fact of a single-valued relation, two edits
that set one slot to different objects, facts read only from passages, and facts of
several subjects sharing one object (three songs with one performer, read backwards) stay
separate candidates: that is the ambiguity the check is for. The record step sums the p of
one group before squaring (kgtool/cypher/hop/record_step.cypher).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from kgtool.reason import steps
from kgtool.reason.context import RunContext

GROUP = "values:"  # the prefix of a value set's group key on the step's candidates


def value_groups(ctx: RunContext, ranked: Sequence[tuple], subject_ids: Iterable[str], want: str) -> dict[str, str]:
    """fact id -> group key, for the reranked candidates that are stated, uncontested values of one
    relation of the constraint's subject (`subject_ids`: its anchor, or the values a settled hop bound
    its placeholder to); only groups of two or more, and only for a constraint read from its subject."""
    subjects = [s for s in dict.fromkeys(subject_ids) if s]
    facts = [cand.fact_id for cand, _z, _e in ranked
             if getattr(cand, "kind", "fact") == "fact" and cand.stated and cand.direction == "out"]
    if want != "out" or len(facts) < 2 or not subjects:
        return {}
    rows = steps.stated_value_relations(ctx, facts, subjects)
    by_relation: dict[str, list[str]] = {}
    for row in rows:
        by_relation.setdefault(row["relation_key"] or "", []).append(row["fact_id"])
    return {fid: GROUP + key for key, fids in by_relation.items() if key and len(fids) > 1 for fid in fids}


def settled_members(ranked: Sequence[tuple], groups: dict[str, str], anchor_ids: set[str]) -> set[str]:
    """The entities a resolved constraint bound through the value set its best candidate belongs to: the
    next constraint's subject is all of them (the parents of X, then each parent's spouse), not one."""
    if not ranked or ranked[0][0].fact_id not in groups:
        return set()
    key = groups[ranked[0][0].fact_id]
    return {cand.tail_id for cand, _z, _e in ranked
            if groups.get(cand.fact_id) == key and cand.tail_id and cand.tail_id not in anchor_ids}


__all__ = ["GROUP", "settled_members", "value_groups"]
