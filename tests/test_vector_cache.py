"""The embedder's disk cache (kgtool.models.vector_cache) and the passage words ingestion puts in it."""
from __future__ import annotations

import json
import logging
import sqlite3

import numpy as np
import pytest

from kgtool.models.embed import CachedEmbedder, get_embedder
from kgtool.models.vector_cache import DiskVectorCache, cache_path, for_embedder
from kgtool.reason.relmatch import RelationMatcher
from kgtool.retrieve.word_vectors import passage_words

TEXTS = ["spouse", "country of citizenship", "Ta\u2019izz", "the person who founded it", "a", "  spaced  "]


class Counting:
    """An embedder that records what it is asked, around a real one."""

    def __init__(self, inner, name=None):
        self.inner, self.calls = inner, []
        self.name = name or inner.name

    @property
    def dim(self):
        return self.inner.dim

    def encode(self, texts):
        self.calls.append(list(texts))
        return self.inner.encode(texts)


@pytest.fixture(scope="module")
def minilm():
    return get_embedder("minilm")


def test_a_new_process_reads_the_vectors_another_one_embedded(minilm, tmp_path):
    path = cache_path(tmp_path, minilm.name)
    first = CachedEmbedder(Counting(minilm), disk=DiskVectorCache(path, minilm.name))
    fresh = first.encode(TEXTS)
    assert path.is_file() and len(first.disk) == len(TEXTS)
    # another process: empty memory, the same file; nothing reaches the model
    inner = Counting(minilm)
    second = CachedEmbedder(inner, disk=DiskVectorCache(path, minilm.name))
    again = second.encode(TEXTS + ["spouse"])
    assert inner.calls == []
    assert np.abs(again[:len(TEXTS)] - fresh).max() == 0.0
    # and they are the model's vectors (to float32 rounding, whichever backend made them)
    assert np.abs(again[:len(TEXTS)] - minilm.encode(TEXTS)).max() < 1e-6
    # only what the file lacks goes to the model, and is kept for the next process
    second.encode(["spouse", "wife"])
    assert inner.calls == [["wife"]]
    assert len(DiskVectorCache(path, minilm.name)) == len(TEXTS) + 1


def test_another_model_has_its_own_file_and_never_reads_these_vectors(minilm, tmp_path):
    path = cache_path(tmp_path, minilm.name)
    CachedEmbedder(minilm, disk=DiskVectorCache(path, minilm.name)).encode(["spouse"])
    other_path = cache_path(tmp_path, "BAAI/bge-m3")
    assert other_path != path and other_path.parent == path.parent and "/" not in other_path.name
    assert DiskVectorCache(other_path, "BAAI/bge-m3").get_many(["spouse"]) == {}


def test_a_file_of_another_model_is_set_aside_with_a_warning(minilm, tmp_path, caplog):
    path = tmp_path / "v.sqlite"
    CachedEmbedder(minilm, disk=DiskVectorCache(path, "model-a")).encode(["spouse"])
    with caplog.at_level(logging.WARNING, logger="kgtool.models.vector_cache"):
        other = DiskVectorCache(path, "model-b")
        assert other.get_many(["spouse"]) == {}  # model-a's vector is not model-b's
    assert "model-a" in caplog.text and str(path) in caplog.text
    assert (tmp_path / "v.sqlite.bad").is_file()  # kept for a look
    other.put_many([("spouse", np.ones(4, dtype=np.float32))])
    assert DiskVectorCache(path, "model-b").get_many(["spouse"])["spouse"].tolist() == [1.0] * 4


def test_a_corrupt_file_is_rebuilt_and_the_answer_goes_on(minilm, tmp_path, caplog):
    path = cache_path(tmp_path, minilm.name)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    inner = Counting(minilm)
    cached = CachedEmbedder(inner, disk=DiskVectorCache(path, minilm.name))
    with caplog.at_level(logging.WARNING, logger="kgtool.models.vector_cache"):
        vectors = cached.encode(["spouse", "wife"])
    assert "not usable" in caplog.text and str(path) in caplog.text
    assert inner.calls == [["spouse", "wife"]] and np.abs(vectors - minilm.encode(["spouse", "wife"])).max() < 1e-6
    assert len(DiskVectorCache(path, minilm.name)) == 2  # a new cache in its place


def test_vectors_of_the_wrong_width_are_refused(tmp_path, caplog):
    path = tmp_path / "v.sqlite"
    DiskVectorCache(path, "m").put_many([("a", np.ones(3, dtype=np.float32))])
    with caplog.at_level(logging.WARNING, logger="kgtool.models.vector_cache"):
        wide = DiskVectorCache(path, "m", dim=5)
        assert wide.get_many(["a"]) == {}
    assert "3 dimensions" in caplog.text
    # a row of another width offered later is not stored beside the file's own
    same = DiskVectorCache(path, "m")
    same.put_many([("b", np.ones(3, dtype=np.float32)), ("c", np.ones(7, dtype=np.float32))])
    assert set(same.get_many(["a", "b", "c"])) == {"b"}


def test_an_unwritable_cache_is_read_and_the_answer_goes_on(minilm, tmp_path, caplog):
    path = cache_path(tmp_path, minilm.name)
    CachedEmbedder(minilm, disk=DiskVectorCache(path, minilm.name)).encode(["spouse"])
    disk = DiskVectorCache(path, minilm.name)
    disk.get_many(["spouse"])
    conn = disk._conn
    conn.execute("PRAGMA query_only = ON")  # as a read-only home would refuse it
    inner = Counting(minilm)
    cached = CachedEmbedder(inner, disk=disk)
    with caplog.at_level(logging.WARNING, logger="kgtool.models.vector_cache"):
        out = cached.encode(["spouse", "wife"])
    assert inner.calls == [["wife"]] and out.shape == (2, 384)
    assert "not written" in caplog.text
    assert cached.encode(["husband"]).shape == (1, 384)  # still answering, still reading


def test_the_cache_can_be_switched_off(minilm, tmp_path, monkeypatch):
    assert for_embedder(tmp_path, minilm).path == cache_path(tmp_path, minilm.name)
    monkeypatch.setenv("KGTOOL_VECTOR_CACHE", "0")
    assert for_embedder(tmp_path, minilm) is None


def test_store_embeds_only_what_the_file_lacks_and_keeps_it_out_of_memory(minilm, tmp_path):
    inner = Counting(minilm)
    cached = CachedEmbedder(inner, disk=DiskVectorCache(cache_path(tmp_path, minilm.name), minilm.name))
    cached.encode(["spouse"])
    assert cached.store(["spouse", "wife", "husband", "wife"], batch=2) == 2
    assert inner.calls == [["spouse"], ["wife"], ["husband"]]
    assert len(cached) == 1  # this process's memory holds what it asked for, not what it stored
    assert cached.store(["wife"]) == 0 and CachedEmbedder(minilm).store(["wife"]) == 0  # no disk: nothing


def test_passage_words_are_the_strings_the_readers_embed(minilm):
    """What ingestion stores must be what a reader's analysis asks for (relmatch._split, whole=False),
    or the answers would still embed them."""
    text = ("Hank Snow's father moved to Nashville, Tennessee in 1949. He was the ship\u2019s "
            "captain; it's the 3rd ALBUM of 12.")
    matcher = RelationMatcher(minilm)
    asked = matcher.strings(text, whole=False)
    assert asked and set(asked) <= set(passage_words([text]))
    sentence = text.split(". ")[1]
    assert set(matcher.strings(sentence, whole=False)) <= set(passage_words([text]))
    assert passage_words([text, text]) == passage_words([text])  # each once


def test_warm_vectors_embeds_every_passage_word_once(kg, tmp_path):
    from kgtool.retrieve.word_vectors import store_passage_words

    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps([{"_id": "q1", "question": "?", "answer": "x", "context": [
        ["Hank Snow", ["Clarence Eugene Snow was a Canadian-American country music artist.",
                       " He moved to Nashville in 1949."]],
        ["Nashville", ["Nashville is the capital city of Tennessee."]]]}]))
    kg.ingest_docs(corpus, format="hotpotqa", embed_relations=False, embed_passages=False)
    embedder = kg.embedder  # the answers' embedder has its disk cache in the cache every home shares
    assert embedder.disk is not None and embedder.disk.path.parent == kg.settings.shared_cache / "vectors"
    inner = Counting(embedder.inner)
    cached = CachedEmbedder(inner, disk=DiskVectorCache(tmp_path / "v.sqlite", embedder.name))
    n = store_passage_words(kg.db, cached)
    words = {w for call in inner.calls for w in call}
    assert n == len(words) >= 10 and {"clarence", "nashville", "capital", "tennessee", "moved"} <= words
    assert "was" not in words and "Nashville" not in words  # content words, lower-cased, as analyses ask
    stored = cached.disk.get_many(["capital"])
    assert np.abs(stored["capital"] - embedder.inner.encode(["capital"])[0]).max() < 1e-6
    assert store_passage_words(kg.db, cached) == 0 and len(inner.calls) == 1  # idempotent
    assert store_passage_words(kg.db, CachedEmbedder(inner)) == 0  # no disk cache: nothing to fill
    with sqlite3.connect(str(cached.disk.path)) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'model'").fetchone()[0] == embedder.name


def test_a_file_damaged_past_its_header_is_set_aside_on_first_read(minilm, tmp_path, caplog):
    """A file whose meta opens but whose vectors' pages are damaged: left in place, every later process
    embedded everything again (the shared cache of this machine was such a file)."""
    path = cache_path(tmp_path, minilm.name)
    CachedEmbedder(minilm, disk=DiskVectorCache(path, minilm.name)).encode([f"phrase {i}" for i in range(400)])
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'vectors'").fetchone()[0]
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(path, "r+b") as fh:  # the vectors table's root page overwritten: the meta table still reads
        fh.seek((root - 1) * page)
        fh.write(b"\xff" * page)
    with caplog.at_level(logging.WARNING, logger="kgtool.models.vector_cache"):
        inner = Counting(minilm)
        cached = CachedEmbedder(inner, disk=DiskVectorCache(path, minilm.name))
        cached.encode(["spouse"])
    assert "not usable" in caplog.text and (tmp_path / "vectors" / (path.name + ".bad")).is_file()
    assert inner.calls == [["spouse"]]
    # the next process reads what this one embedded after setting the damaged file aside
    again = Counting(minilm)
    CachedEmbedder(again, disk=DiskVectorCache(path, minilm.name)).encode(["spouse"])
    assert again.calls == []
