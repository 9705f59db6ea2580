"""Bulk load (`--bulk`): Neo4j's offline importer into an empty local store gives streaming's graph.

The bulk side needs a server of its own (the import stops and restarts it),
started here in a temporary home on a free port; the streaming side is the
session's server (conftest). The tests of this module run in file order on
that one server: the refusals on the empty store first, then the load.
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import SAMPLE, env_for, own_server

from kgtool.api import KnowledgeGraph
from kgtool.cli import main
from kgtool.errors import ConfigError, InputError, ServerError
from kgtool.graph.server import LocalServer
from kgtool.ingest.graph_linker import GraphLinker

SAMPLE_NODES = 40  # per label: the sorted sample whose property maps must be equal


@pytest.fixture(scope="module")
def bulk_settings(tmp_path_factory):
    with own_server(tmp_path_factory.mktemp("kgtool-bulk-home"), "the bulk test Neo4j") as settings:
        yield settings


@pytest.fixture(scope="module")
def bulk_kg(bulk_settings):
    kg = KnowledgeGraph.connect(bulk_settings)
    kg.init_schema()
    yield kg
    kg.close()


def _node_count(kg) -> int:
    return sum(kg.stats()["nodes"].values())


def _snapshot(kg, limit: int = SAMPLE_NODES) -> dict:
    """Counts per label and type, and the property maps of a sorted sample of each."""
    stats = kg.stats()
    nodes = {label: [_plain(r["props"]) for r in kg.db.read("bulk/node_sample", label=label, limit=limit)]
             for label in stats["nodes"]}
    rels = {rtype: [(r["start"], r["end"], _plain(r["props"]))
                    for r in kg.db.read("bulk/relationship_sample", type=rtype, limit=limit)]
            for rtype in stats["relationships"]}
    return {"counts": stats, "nodes": nodes, "relationships": rels}


def _plain(props: dict) -> dict:
    # the ingestion run's clock (and an ingest marker's) differs between two runs by design
    return {k: v for k, v in props.items() if k not in ("ingested_at", "started_at", "finished_at")}


def _same(x, y) -> bool:
    """Equal property maps (or (start, end, props) rows), embeddings equal up to float noise:
    the same label encoded twice can differ in the last bits (BLAS threads, summation order)."""
    if isinstance(x, tuple):
        return x[:2] == y[:2] and _same(x[2], y[2])
    if "embedding" not in x or "embedding" not in y:
        return x == y
    u, v = dict(x), dict(y)
    eu, ev = u.pop("embedding"), v.pop("embedding")
    return u == v and len(eu) == len(ev) and all(abs(p - q) < 1e-4 for p, q in zip(eu, ev))


def _diff(a: dict, b: dict) -> list[str]:
    problems = []
    for part in ("nodes", "relationships"):
        if a["counts"][part] != b["counts"][part]:
            problems.append(f"{part} counts: streaming {a['counts'][part]} != bulk {b['counts'][part]}")
        for name in a[part]:
            for x, y in zip(a[part][name], b[part].get(name, [])):
                if not _same(x, y):
                    problems.append(f"{name}: streaming {x} != bulk {y}")
    return problems


# --------------------------------------------------------------------------- refusals (empty store)


def test_bulk_refuses_a_remote_server(bulk_settings):
    from kgtool.ingest.bulk import ingest_edits_bulk

    remote = replace(bulk_settings, neo4j_uri="bolt://db.example.org:7687")
    with pytest.raises(ConfigError, match="NEO4J_URI is set .*without --bulk"):
        ingest_edits_bulk(remote, SAMPLE / "edits.jsonl")


def test_bad_line_is_reported_and_nothing_is_imported(bulk_kg, bulk_settings, tmp_path):
    lines = (SAMPLE / "edits.jsonl").read_text().splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines[:3] + ['{"id": "x", "subject": "A"'] + lines[3:]) + "\n")
    server = LocalServer(bulk_settings)
    pid = server.pid()
    with pytest.raises(InputError, match="nothing was imported") as refused:
        bulk_kg.ingest_edits(broken, bulk=True)
    assert f"{broken}:4: malformed JSON" in str(refused.value)
    assert server.pid() == pid  # refused before the server was stopped
    assert _node_count(bulk_kg) == 0


def test_conflicts_fail_refuses_before_the_server_stops(bulk_kg, bulk_settings, tmp_path):
    edits = [
        {"id": "c1", "subject": "Zed", "relation": "mayor", "object": "Ann", "description": "Zed's mayor is Ann."},
        {"id": "c2", "subject": "Yan", "relation": "mayor", "object": "Bo", "description": "Yan's mayor is Bo."},
        {"id": "c3", "subject": "Zed", "relation": "mayor", "object": "Cy", "description": "Zed's mayor is Cy."},
    ]
    path = tmp_path / "conflicting.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in edits))
    server = LocalServer(bulk_settings)
    pid = server.pid()
    # batches of one: the conflict is found across batches of the stream
    with pytest.raises(InputError, match="1 conflicting edit.*nothing was imported") as refused:
        bulk_kg.ingest_edits(path, bulk=True, conflicts="fail", batch_size=1)
    assert f"{path}:3: edit 'c3' sets 'Zed' 'mayor' to 'Cy', but edit 'c1' ({path}:1) sets it to 'Ann'" in str(
        refused.value)
    assert server.pid() == pid
    assert _node_count(bulk_kg) == 0


def test_a_list_item_the_importer_would_split_is_refused_before_the_server_stops(bulk_kg, bulk_settings, tmp_path):
    path = tmp_path / "delimiter.jsonl"
    path.write_text(json.dumps({"id": "d1", "subject": "Zed", "relation": "mayor", "object": "Ann",
                                "description": "Zed's mayor is Ann.", "object_aliases": ["A\x1eB"]}) + "\n")
    server = LocalServer(bulk_settings)
    pid = server.pid()
    with pytest.raises(InputError, match="U\\+001E.*load without --bulk"):
        bulk_kg.ingest_edits(path, bulk=True)
    assert server.pid() == pid
    assert _node_count(bulk_kg) == 0


def test_a_failure_while_the_server_stops_starts_it_again(bulk_kg, bulk_settings, monkeypatch):
    from kgtool.ingest.bulk import StreamFold

    def disk_full(self):
        raise OSError(28, "No space left on device")

    # the last files are written while the server stops on another thread
    monkeypatch.setattr(StreamFold, "finish", disk_full)
    with pytest.raises(OSError, match="No space left"):
        bulk_kg.ingest_edits(SAMPLE / "edits.jsonl", bulk=True)
    assert LocalServer(bulk_settings).status().running
    assert _node_count(bulk_kg) == 0


def test_import_files_keep_nulls_empty_strings_quotes_and_line_breaks(tmp_path):
    from kgtool.graph.bulk_import import CsvTable

    table = CsvTable(tmp_path, "nodes-T", [("id", "ID(T)"), ("text", None), ("n", None), ("names", None),
                                           ("flag", "boolean")])
    table.add([("a", None, None, None, True), ("b", "", 3, ["x", 'y "z"'], False)])
    assert not table.multiline
    table.add([("c", 'two\nlines, "quoted"', None, [], None)])
    header, body = table.close()
    assert header.read_text() == "id:ID(T),text:string,n:long,names:string[],flag:boolean\n"
    assert body.read_text() == ('"a",,,,"true"\n"b","","3","x\x1ey ""z""","false"\n'
                                '"c","two\nlines, ""quoted""",,"",\n')
    assert table.multiline
    # a value holding one of the control characters the fast path marks cells with
    odd = CsvTable(tmp_path, "nodes-V", [("id", "ID(V)"), ("text", None), ("n", None)])
    odd.add([("a", "ctl\x01\x02\x04", None), ("b", None, 7)])
    assert odd.close()[1].read_text() == '"a","ctl\x01\x02\x04",\n"b",,7\n'
    refused = CsvTable(tmp_path, "nodes-U", [("id", "ID(U)"), ("names", "string[]")])
    with pytest.raises(InputError, match="U\\+001E"):
        refused.add([("a", ["bad\x1eitem"])])


# --------------------------------------------------------------------------- the load


# Appended to the sample: a conflict (t2 overrides t1), an edit asserting the base fact another
# edit names as its old object, aliases accumulating over edits, quotes, ';' and a line break.
EXTRA_EDITS = [
    {"id": "t1", "subject": 'Alpha "Q" Corp', "relation": "chairperson", "object": "Bob; Smith",
     "old_object": "Carol", "description": 'Alpha "Q" Corp is chaired by Bob; Smith.\nSince 2020.',
     "subject_aliases": ["Alpha Q", "AQC"]},
    {"id": "t2", "subject": 'Alpha "Q" Corp', "relation": "chairperson", "object": "Carol",
     "old_object": "Bob; Smith", "description": 'Alpha "Q" Corp is chaired by Carol.',
     "subject_aliases": ["AQC", "Alpha Corp"]},
    {"id": "t3", "subject": "Dana", "relation": "spouse", "object": "Evan", "old_object": "Finn",
     "description": "Dana married Evan.", "case_id": "c3", "object_aliases": ["E."]},
    {"id": "t4", "subject": "Dana", "relation": "spouse", "object": "Gus", "relation_id": "P26",
     "description": "Dana is married to Gus."},
]


@pytest.fixture(scope="module")
def edits_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("bulk-edits") / "edits.jsonl"
    extra = "".join(json.dumps(e) + "\n" for e in EXTRA_EDITS)
    path.write_text((SAMPLE / "edits.jsonl").read_text().rstrip("\n") + "\n" + extra)
    return path


@pytest.fixture(scope="module")
def loaded(bulk_kg, kg_session, edits_file):
    """The edits, streamed into the session's store and bulk-loaded into the module's."""
    kg_session.clear()
    # batches of 13 put t1 and t2 in different batches: aliases, statuses and the conflict are
    # folded across batches. Both sides cut the file alike because streaming's graph depends on
    # the cut: a fact first replaced and then asserted stays a 'base' fact within one batch
    # (load.GraphRows.fact keeps the first row) but becomes an 'edit' fact across two (MERGE)
    streamed = kg_session.ingest_edits(edits_file, batch_size=13)
    GraphLinker(kg_session.db).sync()  # the keys the first answer writes; the bulk load writes them up front
    bulk = bulk_kg.ingest_edits(edits_file, bulk=True, batch_size=13)
    return streamed, bulk, _snapshot(kg_session), _snapshot(bulk_kg)


def test_bulk_load_equals_streaming(loaded):
    streamed, bulk, a, b = loaded
    assert a["counts"]["nodes"]["Edit"] == 12 + len(EXTRA_EDITS)
    assert a["counts"]["relationships"]["NAMES"] > 0 and a["counts"]["relationships"]["OVERRIDES"] == 1
    assert _diff(a, b) == []
    assert (bulk.edits_loaded, bulk.kept, bulk.facts, bulk.conflicts, bulk.superseded_by_conflict) == (
        streamed.edits_loaded, streamed.kept, streamed.facts, streamed.conflicts, streamed.superseded_by_conflict)
    assert {"read", "import", "schema", "post-processing"} <= set(bulk.phases.seconds)
    assert Path(bulk.phases.import_report).parent.name == "logs"


def test_bulk_store_answers_like_the_streamed_one(loaded, bulk_kg, kg_session):
    question = json.loads((SAMPLE / "questions.jsonl").read_text().splitlines()[0])
    from_bulk = bulk_kg.answer(question["question"], agents="offline")
    from_stream = kg_session.answer(question["question"], agents="offline")
    assert from_bulk.answer == from_stream.answer == question["answer"]
    assert [h["tail"] for h in from_bulk.chain] == [h["tail"] for h in from_stream.chain]


def test_bulk_refuses_a_store_that_is_not_empty(loaded, bulk_kg, bulk_settings, edits_file):
    before = _node_count(bulk_kg)
    with pytest.raises(InputError, match=rf"{bulk_settings.home}.* holds {before:,} node\(s\).*KGTOOL_HOME"):
        bulk_kg.ingest_edits(edits_file, bulk=True)
    assert _node_count(bulk_kg) == before


def test_cli_bulk_facts_equal_streaming(loaded, bulk_kg, bulk_settings, kg_session, tmp_path):
    facts = tmp_path / "kg.tsv"
    facts.write_text("head\trelation\ttail\tevidence\n"
                     "Barack_Obama\tspouse\tMichelle Obama\tBarack Obama is married to Michelle Obama.\n"
                     "Michelle Obama\tplace of birth\tChicago\n"
                     "http://x.org/res/Chicago\thttp://x.org/ont/locatedIn\tIllinois\n"
                     "Barack Obama\tspouse\tMichelle Obama\n"
                     # typed values: nodes of their own fact, typed after the import as streaming types them
                     "Chicago\tpopulation\t2,700,000\n"
                     "Michelle Obama\tdate of birth\t17 January 1964\n")
    bulk_kg.clear()
    kg_session.clear()
    kg_session.ingest_facts(facts)
    GraphLinker(kg_session.db).sync()
    env = {**env_for(bulk_settings), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    out = CliRunner().invoke(main, ["ingest", "facts", str(facts), "--bulk"], env=env)
    assert out.exit_code == 0, out.output
    assert "import report" in out.output
    bulk_kg.db.close()
    bulk_kg.db = type(bulk_kg.db).connect(bulk_settings)  # the CLI restarted the server under this driver
    assert _diff(_snapshot(kg_session), _snapshot(bulk_kg)) == []
    assert bulk_kg.query("MATCH (v:Literal) RETURN v.datatype AS t, v.value AS v ORDER BY t")[1][0] == {
        "t": "date", "v": bulk_kg.query("RETURN date('1964-01-17') AS d")[1][0]["d"]}
    assert bulk_kg.query("MATCH (i:Ingest) RETURN i.finished_at IS NOT NULL AS done")[1] == [{"done": True}]


def test_bulk_mquake_equals_streaming_across_batches(loaded, bulk_kg, kg_session, mquake_dev):
    # a MQuAKE file: base facts first, then edits that supersede them and share Q-id entities
    # (aliases accumulate) in later batches
    bulk_kg.clear()
    kg_session.clear()
    streamed = kg_session.ingest_edits(mquake_dev, batch_size=50)
    GraphLinker(kg_session.db).sync()
    bulk = bulk_kg.ingest_edits(mquake_dev, bulk=True, batch_size=50)
    a, b = _snapshot(kg_session, limit=100_000), _snapshot(bulk_kg, limit=100_000)
    assert a["counts"]["nodes"]["Edit"] == bulk.edits_loaded > 50
    assert any(f["status"] == "superseded" for f in a["nodes"]["Fact"])
    assert _diff(a, b) == []
    assert (bulk.kept, bulk.facts, bulk.base_facts) == (streamed.kept, streamed.facts, streamed.base_facts)


class _NamesAnotherEdit:
    """The anchor candidate plus one naming an entity by an alias only a later edit states,
    so EATR links it through the gazetteer of the whole file."""

    name = "names-another"

    def extract_batch(self, edits):
        from kgtool.ingest.records import Candidate

        return [[Candidate(e.subject, e.relation, e.object, e.description, self.name),
                 Candidate(e.subject, "admires", "Al", e.description, self.name)] for e in edits]


def test_bulk_stream_links_through_the_whole_file(loaded, bulk_kg, kg_session, tmp_path):
    edits = [
        {"id": "g1", "subject": "Beta", "relation": "rival", "object": "Gamma", "description": "Beta rivals Gamma."},
        {"id": "g2", "subject": "Alpha", "subject_id": "Q7", "subject_aliases": ["Al"], "relation": "rival",
         "object": "Delta", "description": "Alpha rivals Delta."},
    ]
    path = tmp_path / "linked.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in edits))
    bulk_kg.clear()
    kg_session.clear()
    # without EATR every candidate is kept with the ids it was resolved to
    kg_session.ingest_edits(path, extractor=_NamesAnotherEdit(), eatr=False, batch_size=1)
    GraphLinker(kg_session.db).sync()
    bulk_kg.ingest_edits(path, bulk=True, extractor=_NamesAnotherEdit(), eatr=False, batch_size=1)
    a, b = _snapshot(kg_session), _snapshot(bulk_kg)
    # g1's "Al" is Alpha (Q7), which only the later line g2 names so
    assert any(f["head_id"] == "name:beta" and f["tail_id"] == "Q7" for f in a["nodes"]["Fact"])
    assert _diff(a, b) == []


def test_a_failed_import_names_its_report_and_the_server_runs_again(loaded, bulk_settings, tmp_path):
    from kgtool.graph.bulk_import import ImportFiles, import_full

    nodes = tmp_path / "nodes.csv"
    nodes.write_text('id:ID(Entity),name\n"a","A"\n')
    rels = tmp_path / "rels.csv"
    rels.write_text(':START_ID(Entity),:END_ID(Entity)\n"a","missing"\n')
    files = ImportFiles(nodes=[("Entity", nodes)], relationships=[("NAMES", rels)])
    with pytest.raises(ServerError, match=r"import failed .*started again.*bulk-import-.*\.report"):
        import_full(bulk_settings, files, work_dir=tmp_path)
    server = LocalServer(bulk_settings)
    assert server.pid() and server.status().running
