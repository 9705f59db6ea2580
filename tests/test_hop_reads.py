"""The answer path's reads: capped pool reads, names known from linking."""
from __future__ import annotations

from kgtool.core.scope import Scope


def _load(kg, facts):
    from kgtool.ingest import load

    rows = load.GraphRows()
    load.rows_for_base_facts(rows, facts)
    load.write_rows(kg.db, rows)


def test_a_capped_pool_is_the_first_facts_of_each_group_of_the_whole_pool(kg):
    from kgtool.ingest.records import BaseFact
    from kgtool.reason.agents.offline.common import first_per_group
    from kgtool.retrieve.hop import read_pools

    facts = [BaseFact(f"Town {k}", "country", "Hubland") for k in range(9)]
    facts += [BaseFact("Hubland", "capital", f"Hub City {k}") for k in range(4)]
    facts += [BaseFact("Hubland", "country", "Hubland Union"), BaseFact("Old Hubland", "successor", "Hubland")]
    _load(kg, facts)
    hub = kg.catalog.link("Hubland")
    with kg.db.session() as session:
        whole, _ = read_pools(kg.db, session, [hub], Scope())
        capped, cut = read_pools(kg.db, session, [hub], Scope(), per_group=3)
        rows = kg.db.run_in(session, "hop/candidates", entity_ids=[hub], per_group=3, **Scope().params())
    assert len(whole[hub]) == 15
    # the same facts in the same order as cutting the whole pool in Python
    assert [f.fact_id for f in capped[hub]] == [f.fact_id for f in first_per_group(whole[hub], 3)]
    assert cut == {hub}
    sizes = {(f["relation"], f["direction"]): f["group_size"] for f in rows[0]["facts"]}
    assert sizes == {("country", "in"): 9, ("capital", "out"): 4, ("country", "out"): 1, ("successor", "in"): 1}
    # both ends are the fact's own, whichever side the hub is on
    by_id = {f.fact_id: f for f in whole[hub]}
    for f in capped[hub]:
        assert (f.head_id, f.head, f.tail_id, f.tail) == (by_id[f.fact_id].head_id, by_id[f.fact_id].head,
                                                          by_id[f.fact_id].tail_id, by_id[f.fact_id].tail)
        assert (f.head_id if f.direction == "out" else f.tail_id) == hub


def test_the_name_of_a_linked_entity_needs_no_second_read(kg):
    from kgtool.ingest.graph_linker import GraphLinker
    from kgtool.ingest.records import BaseFact

    _load(kg, [BaseFact("Amber Vale", "country", "Hubland")])
    linker = GraphLinker(kg.db)
    (mention,) = [m for m in linker.find_mentions("Where is amber vale?") if m.entity_id]
    reads = []
    real_read, real_run_in = kg.db.read, kg.db.run_in

    def counting_read(name, /, **params):
        reads.append(name)
        return real_read(name, **params)

    def counting_run_in(session, name, /, **params):
        reads.append(name)
        return real_run_in(session, name, **params)

    kg.db.read, kg.db.run_in = counting_read, counting_run_in
    try:
        names = linker.entity_names([mention.entity_id])
        other = linker.entity_names(["name:hubland"])
    finally:
        del kg.db.read, kg.db.run_in
    assert names == {mention.entity_id: "Amber Vale"}
    # the counter sees the linker's reads: a name it has not linked is read
    assert other == {"name:hubland": "Hubland"} and reads == ["link/entity_names"]

