"""EATR: endpoint alignment, relation consistency (real MiniLM embeddings), audited decisions."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import pytest

from kgtool.errors import ConfigError
from kgtool.ingest.eatr import Eatr, count_reasons
from kgtool.ingest.extract import AnchorExtractor
from kgtool.ingest.linking import Gazetteer
from kgtool.ingest.readers import read_edits
from kgtool.ingest.records import Candidate, Decision, EditRecord
from kgtool.models.embed import CachedEmbedder, get_embedder

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

EDIT = EditRecord(
    id="mquake:7437:0",
    subject="Alliance for Climate Protection",
    relation="founded by",
    object="Herbert Hoover",
    description="Alliance for Climate Protection was founded by Herbert Hoover.",
    relation_id="P112",
    subject_id="Q118408",
    object_id="Q35236",
    object_aliases=("President Hoover", "Herbert Clark Hoover"),
)
SENTENCE = EDIT.description


def cand(head: str, relation: str, tail: str) -> Candidate:
    return Candidate(head, relation, tail, SENTENCE, "rebel")


class CountingEmbedder:
    """Wraps a real embedder and records each call, to check batching."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.calls: list[list[str]] = []

    @property
    def dim(self) -> int:
        return self.inner.dim

    def encode(self, texts):
        self.calls.append(list(texts))
        return self.inner.encode(texts)


class ExplodingEmbedder:
    name = "exploding"
    dim = 3

    def encode(self, texts):
        raise AssertionError(f"the embedder should not be needed, got {list(texts)}")


@pytest.fixture(scope="module")
def minilm():
    return get_embedder("minilm", device="cpu")


@pytest.fixture()
def eatr(minilm):
    return Eatr(CountingEmbedder(minilm), delta_rel=0.80)


def test_each_reason(eatr):
    candidates = [
        cand("Alliance for Climate Protection", "founded by", "Herbert Hoover"),  # the anchor itself
        cand("alliance for climate protection", "established by", "President Hoover"),  # synonym + alias
        cand("Herbert Hoover", "founded by", "Alliance for Climate Protection"),  # reversed
        cand("Alliance for Climate Protection", "founded by", "Al Gore"),
        cand("Alliance for Climate Protection", "official language", "Herbert Hoover"),
    ]
    decisions = eatr.refine(EDIT, candidates)
    assert [(d.kept, d.reason) for d in decisions] == [
        (True, "kept"),
        (True, "kept"),
        (False, "head_mismatch"),
        (False, "tail_mismatch"),
        (False, "relation_inconsistent"),
    ]
    assert all(isinstance(d, Decision) and d.edit_id == EDIT.id for d in decisions)
    assert [d.candidate for d in decisions] == candidates
    assert decisions[0].cosine == 1.0
    assert 0.80 <= decisions[1].cosine < 1.0
    assert decisions[4].cosine < 0.5
    assert (decisions[1].head_id, decisions[1].tail_id) == ("Q118408", "Q35236")
    assert (decisions[2].head_id, decisions[2].tail_id) == ("Q35236", "Q118408")
    assert decisions[3].tail_id == "name:al gore"


def test_threshold_is_the_boundary(minilm):
    # the same synonym is kept or rejected depending on delta_rel, and the cosine explains why
    strict = Eatr(minilm, delta_rel=0.95).refine(EDIT, [cand(EDIT.subject, "established by", EDIT.object)])
    loose = Eatr(minilm, delta_rel=0.50).refine(EDIT, [cand(EDIT.subject, "established by", EDIT.object)])
    assert strict[0].reason == "relation_inconsistent" and loose[0].reason == "kept"
    assert strict[0].cosine == pytest.approx(loose[0].cosine)


def test_gazetteer_links_other_names_to_the_anchor_ids(minilm):
    gazetteer = Gazetteer()
    gazetteer.add("Q118408", ["Alliance for Climate Protection", "ACP"])
    eatr = Eatr(minilm, gazetteer)
    (decision,) = eatr.refine(EDIT, [cand("ACP", "founded by", "Herbert Clark Hoover")])
    assert decision.reason == "kept" and decision.head_id == "Q118408"
    # without the gazetteer the abbreviation is a different entity
    (plain,) = Eatr(minilm).refine(EDIT, [cand("ACP", "founded by", "Herbert Hoover")])
    assert plain.reason == "head_mismatch" and plain.head_id == "name:acp"


def test_no_eatr_keeps_everything_without_an_embedder():
    eatr = Eatr(ExplodingEmbedder(), enabled=False)
    decisions = eatr.refine(
        EDIT, [cand("Herbert Hoover", "official language", "Poland"), cand(EDIT.subject, "founded by", EDIT.object)]
    )
    assert [(d.kept, d.reason, d.cosine) for d in decisions] == [(True, "no_eatr", None)] * 2
    assert decisions[0].head_id == "Q35236" and decisions[1].tail_id == "Q35236"


def test_batch_calls_the_model_once_for_distinct_relations(eatr):
    other = EditRecord(
        id="e2",
        subject="Poland",
        relation="official language",
        object="German",
        description="The official language of Poland is German.",
        subject_id="Q36",
        object_id="Q188",
    )
    batch_edits = [EDIT, other, EDIT]
    candidates = [
        [cand(EDIT.subject, "established by", EDIT.object), cand(EDIT.subject, "founded by", EDIT.object)],
        [Candidate("Poland", "language used", "German", other.description, "rebel")],
        [cand(EDIT.subject, "established by", EDIT.object)],
    ]
    result = eatr.refine_batch(batch_edits, candidates)
    assert [len(d) for d in result] == [2, 1, 1]
    inner = eatr.embedder.inner
    assert len(inner.calls) == 1
    assert sorted(inner.calls[0]) == sorted(["founded by", "established by", "official language", "language used"])
    eatr.refine_batch(batch_edits, candidates)
    assert len(inner.calls) == 1  # everything cached now
    assert count_reasons(result) == {"kept": 3, "relation_inconsistent": 1}
    assert count_reasons(d for per_edit in result for d in per_edit) == count_reasons(result)
    with pytest.raises(ConfigError, match="one list per edit"):
        eatr.refine_batch(batch_edits, candidates[:2])


def test_anchor_extractor_needs_no_embedder_and_no_gazetteer():
    result = read_edits(SHARED_DATA / "mquake-hard-dev.json")
    built = []

    def build_gazetteer():
        built.append(True)
        return Gazetteer.from_records(result.edits, result.base_facts)

    eatr = Eatr(ExplodingEmbedder(), build_gazetteer)
    decisions = eatr.refine_batch(result.edits, AnchorExtractor().extract_batch(result.edits))
    assert count_reasons(decisions) == {"kept": len(result.edits)}
    assert all(d[0].head_id == e.subject_id and d[0].tail_id == e.object_id for d, e in zip(decisions, result.edits))
    assert not built  # the anchor names its edit's own entities: nothing to link
    # a mention that is not the edit's own name builds the gazetteer once and links through it
    edit = result.edits[0]
    alias = Candidate(edit.subject.upper() + " ", edit.relation, edit.object, edit.description, "rebel")
    other = next(e for e in result.edits if e.subject not in (edit.subject, edit.object))
    stranger = Candidate(other.subject, edit.relation, edit.object, edit.description, "rebel")
    first, second = eatr.refine_batch([edit, edit], [[stranger], [stranger]])
    assert built == [True]
    assert first[0].head_id == second[0].head_id == other.subject_id and first[0].reason == "head_mismatch"
    (decision,) = eatr.refine(edit, [alias])
    assert decision.reason == "kept" and built == [True]


def test_settings_and_validation(minilm):
    from kgtool.config import Settings

    eatr = Eatr.from_settings(Settings(delta_rel=0.7, embedder="minilm"), enabled=False)
    assert eatr.delta_rel == 0.7 and eatr.enabled is False and eatr.embedder_spec == "minilm"
    with pytest.raises(ConfigError, match="delta_rel"):
        Eatr(minilm, delta_rel=1.5)
    assert isinstance(Eatr(minilm).embedder, CachedEmbedder)
    assert np.isclose(Eatr(minilm).relation_cosine("spouse", "spouse"), 1.0)
