"""Probe suite of issue 45: hostile input sizes, full disks, panicked databases, unbounded console output.

Each test failed on 39aec5c (main when the issue was taken up). Real parts only: Neo4j servers started by
kgtool's own code, the real `kgtool` CLI in a subprocess, a real tmpfs for the full disk where the machine
lets a test mount one (as root; else ENOSPC is injected at the write), a transaction log damaged on disk.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import env_for, ingest_triples, own_server

from kgtool.errors import KgToolError, ServerError

CLI = [sys.executable, "-m", "kgtool.cli"]

FACTS = [("Velmora Labs", "founded by", "Iskra Dunlevy"), ("Iskra Dunlevy", "born in", "Corvath"),
         ("Tarn\x07\x07\x07ovik Bridge", "located in", "Pellmark")]

PROBES = [
    'Who founded "Velmora Labs"?',
    "Velmora AND NOT founder:* OR name~2 ^4 [a TO z] {x} \\ / Labs?",
    "Who founded Velmora Labs'}) MATCH (n) DETACH DELETE n //",
    "Who founded Velmora\x00Labs\x07\x1b[31m?",
    "\u0645\u0646 \u0623\u0633\u0633 Velmora Labs\u061f",  # right-to-left
    "Who founded Velmora Labs \U0001f9ea\U0001f525?",
    "Who founded " + "a" * 100_000,
    "b" * 200_000,
    "c" * 1_000_000,
    "Where was the founder of Velmora Labs born?",  # after all of them: still answered
]
TOO_LONG = {6, 7, 8}  # the 100 KB, 200 KB and 1 MB questions (0-based)


@pytest.fixture(scope="module")
def probe_server(tmp_path_factory):
    with own_server(tmp_path_factory.mktemp("probe-home"), "the probe's Neo4j") as settings:
        yield settings


@pytest.fixture(scope="module")
def probe_kg(probe_server, tmp_path_factory):
    from kgtool.api import KnowledgeGraph

    kg = KnowledgeGraph.connect(probe_server)
    kg.init_schema()
    ingest_triples(kg, tmp_path_factory.mktemp("facts") / "facts.jsonl", FACTS)
    kg.catalog.gazetteer.ensure()  # the linker's name keys, as the first answer would write them
    # the graph is what an ingest writes; answering adds its trace (runs, steps, questions, ...) beside it
    kg.graph_labels = sorted(row["label"] for row in kg.query("MATCH (n) UNWIND labels(n) AS label RETURN DISTINCT label")[1])
    yield kg
    kg.close()


def content_hash(kg) -> str:
    """A hash of every node, relationship and property of the graph (the labels an ingest wrote), not the trace."""
    graph = {"graph": kg.graph_labels}
    nodes = kg.query("MATCH (n) WHERE all(l IN labels(n) WHERE l IN $graph) "
                     "RETURN labels(n) AS labels, properties(n) AS props", graph)[1]
    rels = kg.query("MATCH (a)-[r]->(b) WHERE all(l IN labels(a) + labels(b) WHERE l IN $graph) "
                    "RETURN type(r) AS type, properties(r) AS props, elementId(a) AS a, elementId(b) AS b", graph)[1]
    rows = sorted(json.dumps(r, sort_keys=True, default=str) for r in [*nodes, *rels])
    return hashlib.sha256("\n".join(rows).encode()).hexdigest(), rows


def assert_unchanged(kg, before) -> None:
    after = content_hash(kg)
    assert after[0] == before[0], (f"gone: {sorted(set(before[1]) - set(after[1]))[:5]} "
                                   f"new: {sorted(set(after[1]) - set(before[1]))[:5]}")


# --------------------------------------------------------------------------- bounds on user text


@pytest.mark.parametrize("method", ["c2rag", "reagent"])
def test_the_probe_questions_each_get_an_answer_or_one_line_and_change_nothing(probe_kg, probe_server, tmp_path,
                                                                                method):
    from kgtool.graph.server import LocalServer

    questions = tmp_path / "probe.jsonl"
    questions.write_text("".join(json.dumps({"question": q}) + "\n" for q in PROBES))
    server = LocalServer(probe_server)
    pid, before = server.pid(), content_hash(probe_kg)
    t0 = time.monotonic()
    proc = subprocess.run([*CLI, "ask", "-f", str(questions), "--method", method, "--json"],
                          env={**os.environ, **env_for(probe_server)}, capture_output=True, text=True, timeout=900)
    took = time.monotonic() - t0
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == len(PROBES), (proc.returncode, proc.stderr[-3000:])
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    for i, line in enumerate(lines):
        if i in TOO_LONG:
            assert line["status"] == "failed" and "characters" in line["error"], line
        else:
            assert line.get("question") and line["status"] != "failed", (i, line)
    assert len(errors) == len(TOO_LONG) and all("question" in e and len(e) < 400 for e in errors), errors
    assert proc.returncode == 1  # some questions failed
    assert server.pid() == pid and server._bolt_answers(), "the server went down"
    assert_unchanged(probe_kg, before)
    assert took < 600


def test_bounds_are_checked_before_linking_and_stated_in_help(probe_kg):
    from kgtool.ingest.near_names import fuzzy_query
    from kgtool.retrieve.passages import lucene_query

    with pytest.raises(KgToolError, match="more than the 2,000 a question may have"):
        probe_kg.answer("Who " * 600 + "founded Velmora Labs?")
    with pytest.raises(KgToolError, match="a word of 151 characters"):
        probe_kg.answer("Who founded " + "z" * 150 + "?")
    # whatever the bounds are set to, no huge term reaches Lucene
    assert fuzzy_query("Who made " + "Q" * 5000 + " Crnolix?") == "crnolix~1"
    assert "x" * 65 not in lucene_query("x" * 200_000 + " bridge") and "bridge" in lucene_query("x" * 65 + " bridge")
    assert len(lucene_query(" ".join(f"w{i}" for i in range(5000))).split()) <= 200
    help_text = subprocess.run([*CLI, "ask", "--help"], capture_output=True, text=True).stdout
    assert "2,000" in help_text and "100" in help_text and "KGTOOL_MAX_WORD_CHARS" in help_text


def test_a_name_with_control_characters_can_be_asked_about(probe_kg):
    from kgtool.reason.runner import clean_question

    # three control characters: too far from the name as asked for the misspelt-name fallback to link it
    question = clean_question("Where is Tarn\x07\x07\x07ovik Bridge located?")
    linked = [m[2] for m in probe_kg.catalog.link_mentions(question)]
    bridge = probe_kg.catalog.link("Tarn\x07\x07\x07ovik Bridge")
    assert bridge is not None and bridge in linked


# --------------------------------------------------------------------------- disk space


@pytest.fixture
def small_disk(tmp_path):
    """A 64 MB filesystem: a real tmpfs when this process may mount one (root), else None (then ENOSPC and the
    free space are injected)."""
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m,mode=0700", "tmpfs", str(mount)],
                          capture_output=True).returncode == 0
    try:
        yield mount, made
    finally:
        if made:
            subprocess.run(["umount", str(mount)], check=True)


def test_a_model_cache_that_does_not_fit_is_refused_with_the_path_and_the_space(small_disk, monkeypatch):
    from kgtool.models.embed import MiniLMEmbedder

    disk, real = small_disk
    if not real:
        monkeypatch.setattr("kgtool.core.files.free_bytes", lambda path: 60 * 1024 * 1024)
    monkeypatch.setenv("KGTOOL_HOME", str(disk / "home"))
    monkeypatch.setenv("KGTOOL_CACHE_DIR", str(disk / "cache"))
    monkeypatch.setenv("KGTOOL_MINILM_BACKEND", "onnx")
    with pytest.raises(KgToolError) as refused:
        MiniLMEmbedder().encode(["a text"])
    message = str(refused.value)
    assert "not enough free space for the ONNX model cache" in message and str(disk / "cache") in message
    assert "MB" in message and "free" in message
    assert not list(disk.rglob("*.part")) and not list(disk.rglob("*.onnx"))


def test_a_full_disk_mid_write_leaves_no_part_and_no_half_file(small_disk, monkeypatch):
    from kgtool.core.files import remove_leftover_parts, write_atomic

    disk, real = small_disk
    target = disk / "cache" / "models" / "big.onnx"
    chunk = b"x" * (1 << 20)

    def fill(fh):
        for _ in range(100):  # 100 MB into 64
            if not real and fh.tell() > 30 * len(chunk):
                raise OSError(errno.ENOSPC, "No space left on device")
            fh.write(chunk)

    with pytest.raises(KgToolError, match="the disk is full: big file could not be written to .*big.onnx"):
        write_atomic(target, fill, size_hint=0, what="big file", headroom=0)
    assert not target.exists() and not list(disk.rglob("*.part"))
    # a part file a killed writer left behind goes at the next write in its directory
    dead = subprocess.Popen(["true"])
    dead.wait()
    leftover = target.with_name(f"other.onnx.{dead.pid}.part")
    leftover.write_bytes(b"half")
    assert remove_leftover_parts(target.parent) == [leftover] and not leftover.exists()


def test_an_ingest_is_refused_before_it_starts_when_the_store_disk_lacks_room(probe_kg, tmp_path, monkeypatch):
    facts = tmp_path / "more.jsonl"
    facts.write_text("".join(json.dumps({"head": f"Ostrel {i}", "relation": "next to", "tail": f"Ostrel {i + 1}"})
                             + "\n" for i in range(200)))
    before = content_hash(probe_kg)
    # the store's filesystem with 20 MB free: less than the 64 MB kept free beyond what the ingest needs
    monkeypatch.setattr("kgtool.core.files.free_bytes", lambda path: 20 * 1024 * 1024)
    with pytest.raises(KgToolError) as refused:
        probe_kg.ingest_facts(facts)
    message = str(refused.value)
    assert f"ingesting {facts}" in message and str(probe_kg.settings.home / "neo4j" / "data") in message
    assert "MB" in message
    assert_unchanged(probe_kg, before)


def test_doctor_reports_relation_labels_without_embeddings_and_fix_embeds_them(probe_server, tmp_path):
    from kgtool.api import KnowledgeGraph

    with KnowledgeGraph.connect(probe_server) as kg:
        # what a full disk left: the facts committed, their relation labels never embedded
        kg.ingest_facts(_facts_file(tmp_path, [("Quillon Ferry", "operated by", "Marsk Lines")]),
                        embed_relations=False)
        found = kg.health()
        assert found.relations_without_embedding >= 1 and not found.ok
        assert any("relation label(s) without an embedding" in p for p in found.problems())
        fixed = kg.repair()
        assert fixed.relations_embedded >= 1 and kg.health().relations_without_embedding == 0


def _facts_file(tmp_path, triples) -> Path:
    path = tmp_path / f"f{len(list(tmp_path.iterdir()))}.jsonl"
    path.write_text("".join(json.dumps({"head": h, "relation": r, "tail": t}) + "\n" for h, r, t in triples))
    return path


# --------------------------------------------------------------------------- the console


def test_cypher_shows_a_thousand_rows_by_default_and_counts_the_rest(probe_server):
    env = {**os.environ, **env_for(probe_server)}
    query = "UNWIND range(1, 2500) AS i RETURN i"
    table = subprocess.run([*CLI, "cypher", query], env=env, capture_output=True, text=True, timeout=300)
    assert table.returncode == 0, table.stderr
    assert "1000 row(s)" in table.stdout and "1,500 more row(s) not shown" in table.stdout
    as_csv = subprocess.run([*CLI, "cypher", query, "--format", "csv", "--limit", "10"], env=env,
                            capture_output=True, text=True, timeout=300)
    assert as_csv.stdout.splitlines() == ["i", *map(str, range(1, 11))]
    assert "2,490 more row(s) not shown" in as_csv.stderr
    everything = subprocess.run([*CLI, "cypher", query, "--format", "json", "--limit", "0"], env=env,
                                capture_output=True, text=True, timeout=300)
    assert [r["i"] for r in json.loads(everything.stdout)] == list(range(1, 2501))


def test_cypher_streams_rows_and_its_time_limit_covers_printing(probe_server):
    from kgtool.graph.console import parse_timeout  # noqa: F401  (the option's format)

    env = {**os.environ, **env_for(probe_server)}
    # rows stream out as they come: the first rows are on stdout before the command ends, and a reader
    # that is slow to take them (a pipe nobody reads for 4 s) keeps the command past its 2 s limit
    proc = subprocess.Popen([*CLI, "cypher", "UNWIND range(1, 3000000) AS i RETURN i, 'padding padding' AS p",
                             "--format", "csv", "--limit", "0", "--timeout", "2s"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    assert first.strip() == "i,p"
    time.sleep(4)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 2, err
    assert "time limit of 2 s" in err
    assert 0 < len(out.splitlines()) < 3_000_000


# --------------------------------------------------------------------------- a panicked or damaged store


# how Neo4j 5.26 logs a panic caused by a full disk (its own message texts, from the runtime's jars)
PANIC_LINES = (
    "2026-01-01 00:00:00.000+0000 ERROR [o.n.k.d.DatabaseHealth] [neo4j/00000000] Database panic: The database "
    "has encountered a critical error, and needs to be restarted. Please see database logs for more details.\n"
    "java.io.IOException: No space left on device\n"
    "\tat java.base/sun.nio.ch.FileDispatcherImpl.write0(Native Method)\n")


def test_a_panicked_database_is_named_with_its_cause_instead_of_waited_out(tmp_path):
    from kgtool.graph.server import LocalServer

    with own_server(tmp_path / "home", "a Neo4j to panic") as settings:
        server = LocalServer(settings)
    assert "Logging config in use" in server.debug_log.read_text()  # a real server's session
    # the real server stopped; its debug.log ends as a disk-full panic ends it, and a process that
    # holds the pid and answers nothing stands for the panicked JVM (alive, not serving)
    with server.debug_log.open("a") as fh:
        fh.write(PANIC_LINES)
    hung = subprocess.Popen(["sleep", "300"], start_new_session=True)
    server.pid_file.write_text(str(hung.pid))
    try:
        t0 = time.monotonic()
        with pytest.raises(ServerError) as failed:
            server.start(timeout=60)
        took = time.monotonic() - t0
    finally:
        os.kill(hung.pid, signal.SIGKILL)
        hung.wait()
    message = str(failed.value)
    assert took < 20, f"waited {took:.0f} s"
    assert "panicked because its disk is full" in message and "Free space" in message
    assert "kgtool db stop && kgtool db start" in message and "No space left on device" in message


def test_a_damaged_transaction_log_is_named_and_doctor_recover_starts_the_store(tmp_path):
    from kgtool.api import KnowledgeGraph
    from kgtool.graph.server import LocalServer

    home = tmp_path / "home"
    with own_server(home, "a Neo4j to damage") as settings:
        server = LocalServer(settings)
        with KnowledgeGraph.connect(settings) as kg:
            kg.init_schema()
            ingest_triples(kg, tmp_path / "a.jsonl", [("Brennic Hall", "next to", "Ostmark Gate")])
            ingest_triples(kg, tmp_path / "b.jsonl", [(f"Brennic {i}", "next to", f"Brennic {i + 1}")
                                                      for i in range(3000)])  # one transaction, the log's end
        os.kill(server.pid(), signal.SIGKILL)  # no checkpoint: the next start must replay the log
        time.sleep(1)
    logs = sorted((home / "neo4j" / "data" / "transactions" / "neo4j").glob("neostore.transaction.db.*"))
    with logs[-1].open("r+b") as fh:  # what a full disk leaves: a log with a garbled stretch
        fh.seek(logs[-1].stat().st_size * 3 // 4)
        fh.write(b"\xff" * 4096)
    env = {**os.environ, **env_for(settings)}
    start = subprocess.run([*CLI, "db", "start", "--timeout", "240"], env=env, capture_output=True, text=True,
                           timeout=400)
    assert start.returncode != 0
    assert "transaction log is damaged" in start.stderr and "kgtool db doctor --recover" in start.stderr
    assert "LOST" in start.stderr or "DROPS" in start.stderr
    no = subprocess.run([*CLI, "db", "doctor", "--recover"], env=env, input="n\n", capture_output=True, text=True,
                        timeout=120)
    assert no.returncode != 0 and not list((home / "neo4j").glob("data.backup-*"))  # asked, and refused
    try:
        yes = subprocess.run([*CLI, "db", "doctor", "--recover", "--yes"], env=env, capture_output=True, text=True,
                             timeout=900)
        assert yes.returncode == 0, yes.stderr[-3000:]
        backups = list((home / "neo4j").glob("data.backup-*"))
        assert len(backups) == 1 and (backups[0] / "transactions").is_dir()
        assert "recovered" in yes.stdout and "DROPS" in yes.stderr
        count = subprocess.run([*CLI, "cypher", "MATCH (e:Entity) RETURN count(e) AS n, "
                                "count(CASE WHEN e.name = 'Brennic Hall' THEN 1 END) AS first", "--format", "json"],
                               env=env, capture_output=True, text=True, timeout=300)
        assert count.returncode == 0, count.stderr
        kept = json.loads(count.stdout)[0]
        assert kept["first"] == 1 and kept["n"] < 3003  # the first ingest kept, the damaged end dropped
    finally:
        server.stop()


def test_the_server_config_bounds_its_logs(probe_server):
    from kgtool.graph.server import LocalServer

    server = LocalServer(probe_server)
    conf = (server.home / "conf" / "neo4j.conf").read_text()
    assert f"server.logs.config={server.home / 'conf' / 'server-logs.xml'}" in conf
    assert "SizeBasedTriggeringPolicy" in (server.home / "conf" / "user-logs.xml").read_text()
    # the running server uses kgtool's configuration, not its embedded default
    assert f"Logging config in use: File '{server.home / 'conf' / 'server-logs.xml'}'" in server.debug_log.read_text()


# --------------------------------------------------------------------------- file modes


def test_what_kgtool_writes_under_its_home_is_its_owners_only(probe_kg, probe_server, tmp_path, monkeypatch):
    from kgtool.models.vector_cache import DiskVectorCache

    home = Path(probe_server.home)
    probe_kg.answer("Who founded Velmora Labs?")  # writes the driver log and the caches
    loose = DiskVectorCache(home / "cache" / "vectors" / "m.sqlite", "m")
    loose.put_many([("a text", [0.1, 0.2])])
    paths = [home / "logs", home / "logs" / "kgtool.log", home / "cache", home / "cache" / "vectors",
             home / "cache" / "vectors" / "m.sqlite"]
    for path in paths:
        assert path.exists(), path
        assert path.stat().st_mode & 0o077 == 0, f"{path} is {oct(path.stat().st_mode & 0o777)}"


# --------------------------------------------------------------------------- a merge that meets another


def test_a_resolve_that_meets_a_concurrent_merge_finishes(probe_kg, tmp_path, monkeypatch):
    from kgtool.resolve import store

    ingest_triples(probe_kg, tmp_path / "one.jsonl", [("Halvard Ostrum", "member of", "Tessel Guild")])
    ingest_triples(probe_kg, tmp_path / "two.jsonl", [("Halvard Östrum", "born in", "Corvath")])
    propose = store.propose
    raced = []

    def propose_then_race(views, resolvers, focus=None, **more):
        proposal = propose(views, resolvers, focus=focus, **more)
        if proposal.merges and not raced:  # another process merges the same pair after this pass read them
            raced.append(None)
            raced[0] = store.resolve(probe_kg.db, "fuzzy", focus=focus)
        return proposal

    monkeypatch.setattr(store, "propose", propose_then_race)
    report = probe_kg.resolve("fuzzy")
    assert raced and raced[0].merges, "the concurrent merge did not happen"
    assert report.merges == []  # proposed again on the graph as it is: nothing left to merge
    ids = {r["id"] for r in probe_kg.query("MATCH (e:Entity) WHERE e.name STARTS WITH 'Halvard' "
                                           "RETURN e.id AS id")[1]}
    assert len(ids) == 1


def test_eval_reports_a_failed_question_on_one_line_and_answers_the_rest(probe_kg, probe_server, tmp_path):
    from kgtool.graph.server import LocalServer

    qa = tmp_path / "qa.jsonl"
    items = [{"id": "huge", "question": "b" * 200_000, "answers": ["x"]},
             {"id": "lucene", "question": PROBES[1], "answers": ["Iskra Dunlevy"]},
             {"id": "after", "question": "Who founded Velmora Labs?", "answers": ["Iskra Dunlevy"]}]
    qa.write_text("".join(json.dumps(item) + "\n" for item in items))
    report = tmp_path / "report.json"
    server = LocalServer(probe_server)
    pid = server.pid()
    proc = subprocess.run([*CLI, "eval", "qa", str(qa), "--method", "c2rag", "--workers", "1", "--json", str(report)],
                          env={**os.environ, **env_for(probe_server)}, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    failed = [line for line in (proc.stdout + proc.stderr).splitlines() if "question huge failed" in line]
    assert len(failed) == 1 and "200,000 characters" in failed[0], proc.stdout[-3000:]
    results = {r["id"]: r for r in json.loads(report.read_text())["methods"]["c2rag"]["results"]}
    assert results["after"]["status"] != "failed" and results["lucene"]["status"] != "failed"
    assert server.pid() == pid and server._bolt_answers(), "the server went down"
