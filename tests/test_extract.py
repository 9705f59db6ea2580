"""Extractors: sentence splitting, REBEL decoding, a tiny random REBEL end to end, LLM triples."""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest

from kgtool.errors import ConfigError
from kgtool.ingest.extract import (
    AnchorExtractor,
    CombinedExtractor,
    Extractor,
    LLMExtractor,
    RebelExtractor,
    decode_rebel,
    evidence_sentence,

    get_extractor,
    parse_llm_triples,
    split_sentences,
)
from kgtool.ingest.records import Candidate, EditRecord

EDIT = EditRecord(
    id="e1",
    subject="Hey Jude",
    relation="performer",
    object="Madonna",
    description="Hey Jude was performed by Madonna.",
)


# --------------------------------------------------------------------------- sentences


def test_split_sentences():
    assert split_sentences("Hey Jude was performed by Madonna.") == ["Hey Jude was performed by Madonna."]
    text = (
        "Alliance for Climate Protection was founded by H. C. Hoover. He lived in Washington, D.C. "
        'for years!  Dr. Smith met him in the U.S. in 1920. "Really?" 2 more.'
    )
    assert split_sentences(text) == [
        "Alliance for Climate Protection was founded by H. C. Hoover.",
        "He lived in Washington, D.C. for years!",
        "Dr. Smith met him in the U.S. in 1920.",
        '"Really?"',
        "2 more.",
    ]
    assert split_sentences("no boundary. lower case continues") == ["no boundary. lower case continues"]
    assert split_sentences("   ") == []


# --------------------------------------------------------------------------- REBEL decoding


def test_decode_rebel_several_triplets_and_relations_per_head():
    text = (
        "<s><triplet> Hey Jude <subj> The Beatles <obj> performer <subj> 1968 <obj> publication date "
        "<triplet> The Beatles <subj> Liverpool <obj> location of formation</s><pad><pad>"
    )
    assert decode_rebel(text) == [
        ("Hey Jude", "performer", "The Beatles"),
        ("Hey Jude", "publication date", "1968"),
        ("The Beatles", "location of formation", "Liverpool"),
    ]


def test_decode_rebel_whitespace_and_glued_markers():
    text = "<s>  <triplet>Alliance   for Climate\tProtection<subj>Herbert  Hoover<obj>founded by  </s>"
    assert decode_rebel(text) == [("Alliance for Climate Protection", "founded by", "Herbert Hoover")]


def test_decode_rebel_drops_incomplete_groups():
    text = (
        "<s><triplet> Poland <subj> German <obj> official language "  # complete
        "<triplet> Poland <subj> Europe "  # no relation
        "<triplet> <subj> Warsaw <obj> capital "  # no head
        "<triplet> Poland <obj> continent "  # no tail
        "<subj> Vistula <obj> "  # empty relation
        "<triplet> Poland <subj> German <obj> official language</s>"  # repeat
    )
    assert decode_rebel(text) == [("Poland", "official language", "German")]
    assert decode_rebel("") == []
    assert decode_rebel("<s></s><pad>") == []
    assert decode_rebel("plain text without markers") == []


# --------------------------------------------------------------------------- anchor


def test_anchor_extractor():
    extractor = AnchorExtractor()
    assert isinstance(extractor, Extractor)
    assert extractor.extract_batch([EDIT])[0] == [
        Candidate("Hey Jude", "performer", "Madonna", "Hey Jude was performed by Madonna.", "anchor")
    ]
    assert extractor.extract_batch([]) == []


# --------------------------------------------------------------------------- tiny REBEL


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character table (BART's tokenizer alphabet)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars = printable[:]
    extra = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + extra)
            extra += 1
    return dict(zip(printable, (chr(c) for c in chars)))


@pytest.fixture(scope="module")
def tiny_rebel_dir(tmp_path_factory) -> Path:
    """A randomly initialised BART with a byte-level tokenizer and REBEL's marker tokens."""
    from transformers import BartConfig, BartForConditionalGeneration, BartTokenizer

    root = tmp_path_factory.mktemp("tiny-rebel")
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for ch in _bytes_to_unicode().values():
        vocab.setdefault(ch, len(vocab))
    vocab["<mask>"] = len(vocab)
    (root / "vocab.json").write_text(json.dumps(vocab))
    (root / "merges.txt").write_text("#version: 0.2\n")
    tokenizer = BartTokenizer(str(root / "vocab.json"), str(root / "merges.txt"))
    tokenizer.add_tokens(["<triplet>", "<subj>", "<obj>"], special_tokens=True)

    config = BartConfig(
        vocab_size=len(tokenizer),
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        max_position_embeddings=160,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        decoder_start_token_id=2,
        forced_bos_token_id=0,
    )
    import torch

    torch.manual_seed(0)
    model_dir = root / "model"
    BartForConditionalGeneration(config).save_pretrained(model_dir)
    tokenizer.save_pretrained(model_dir)
    return model_dir


def test_tiny_rebel_tokenizer_keeps_markers(tiny_rebel_dir):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(tiny_rebel_dir))
    ids = tokenizer("<triplet> A <subj> B <obj> r").input_ids
    decoded = tokenizer.decode(ids, skip_special_tokens=False)
    assert decode_rebel(decoded) == [("A", "r", "B")]


def test_rebel_extractor_end_to_end_on_tiny_model(tiny_rebel_dir):
    extractor = get_extractor(
        str(tiny_rebel_dir), batch_size=2, device="cpu", num_beams=2, max_input_tokens=128, max_output_tokens=24
    )
    assert isinstance(extractor, RebelExtractor)
    edits = [
        EDIT,
        EditRecord(
            id="e2",
            subject="Poland",
            relation="official language",
            object="German",
            description="The official language of Poland is German. Poland is in Europe.",
        ),
        EditRecord(id="e3", subject="X", relation="r", object="Y", description="Hey Jude was performed by Madonna."),
    ]
    result = extractor.extract_batch(edits)
    assert len(result) == 3
    sentences = {
        "Hey Jude was performed by Madonna.",
        "The official language of Poland is German.",
        "Poland is in Europe.",
    }
    for candidates in result:
        assert isinstance(candidates, list)
        for c in candidates:  # a random model may produce nothing; whatever it produces is well formed
            assert isinstance(c, Candidate) and c.extractor == "rebel"
            assert all(isinstance(x, str) and x and x == x.strip() for x in (c.head, c.relation, c.tail))
            assert c.evidence in sentences
    # identical descriptions give identical candidates (the sentence is generated once)
    assert [(c.head, c.relation, c.tail) for c in result[0]] == [(c.head, c.relation, c.tail) for c in result[2]]
    assert extractor.device == "cpu"
    assert extractor._model.training is False


def test_rebel_extractor_maps_sentences_back_to_edits(monkeypatch):
    # stands in for the generation step only: realistic REBEL strings per sentence
    outputs = {
        "The official language of Poland is German.": "<s><triplet> Poland <subj> German <obj> official language</s>",
        "Poland is in Europe.": "<s><triplet> Poland <subj> Europe <obj> continent <subj> Europe <obj> part of</s>",
        "Hey Jude was performed by Madonna.": "<s><triplet> Hey Jude <subj> Madonna <obj> performer</s><pad>",
    }
    seen: list[list[str]] = []

    def fake_generate(self, batch):
        seen.append(list(batch))
        return [decode_rebel(outputs[sentence]) for sentence in batch]

    monkeypatch.setattr(RebelExtractor, "_generate", fake_generate)
    edits = [
        EditRecord(
            id="p",
            subject="Poland",
            relation="official language",
            object="German",
            description="The official language of Poland is German. Poland is in Europe.",
        ),
        EDIT,
        EditRecord(id="q", subject="Poland", relation="continent", object="Europe", description="Poland is in Europe."),
    ]
    result = RebelExtractor(batch_size=2).extract_batch(edits)
    assert result[0] == [
        Candidate("Poland", "official language", "German", "The official language of Poland is German.", "rebel"),
        Candidate("Poland", "continent", "Europe", "Poland is in Europe.", "rebel"),
        Candidate("Poland", "part of", "Europe", "Poland is in Europe.", "rebel"),
    ]
    assert result[1] == [Candidate("Hey Jude", "performer", "Madonna", "Hey Jude was performed by Madonna.", "rebel")]
    assert result[2] == result[0][1:]
    # each distinct sentence is generated once, in batches of batch_size
    assert seen == [
        ["The official language of Poland is German.", "Poland is in Europe."],
        ["Hey Jude was performed by Madonna."],
    ]


def test_rebel_extractor_bad_model_path_names_the_fix(tmp_path):
    extractor = RebelExtractor(str(tmp_path / "missing"), device="cpu")
    with pytest.raises(ConfigError, match="anchor"):
        extractor.extract_batch([EDIT])[0]


def test_rebel_options_are_checked():
    with pytest.raises(ConfigError, match="num_return_sequences"):
        RebelExtractor(num_beams=1, num_return_sequences=2)


# --------------------------------------------------------------------------- LLM


def test_llm_extractor_over_http_validates_and_grounds_evidence(stub_llm, stub_settings):
    """The real LLMClient against the local OpenAI-compatible stub: a reply
    without a tail is re-asked, the second reply is cleaned and grounded."""
    from stub_llm import Reply, make_client

    edit = EditRecord(
        id="e2",
        subject="Poland",
        relation="official language",
        object="German",
        description="Poland is in Europe. The official language of Poland is German.",
    )
    stub_llm.script(
        Reply.json({"triples": [{"head": "Poland", "relation": "official language"}]}),  # no tail -> re-ask
        Reply.json({
            "triples": [
                {"head": "Poland", "relation": "official language", "tail": "German"},
                ["Poland", "continent", "Europe"],
                {"head": " Poland ", "relation": "official  language", "tail": "German"},  # repeat after cleanup
            ]
        }),
    )
    candidates = LLMExtractor(client=make_client(stub_settings)).extract_batch([edit])[0]
    assert candidates == [
        Candidate("Poland", "official language", "German", "The official language of Poland is German.", "llm"),
        Candidate("Poland", "continent", "Europe", "Poland is in Europe.", "llm"),
    ]
    first, second = stub_llm.requests
    system = first.messages[0]["content"]
    assert "JSON" in system and edit.description in first.text()
    # the re-ask carries the correction, not the bad reply (issue 25)
    assert "Reply again" in second.text() and "Reply again" not in first.text()


def test_parse_llm_triples_rejects_bad_shapes():
    assert parse_llm_triples({"triples": []}) == []
    assert parse_llm_triples([["a", "r", "b"]]) == [("a", "r", "b")]
    for bad in ({"facts": []}, {"triples": ["a r b"]}, {"triples": [["a", "", "b"]]}, "text", {"triples": [[1, 2, 3]]}):
        with pytest.raises(ValueError):
            parse_llm_triples(bad)


def test_evidence_sentence_falls_back():
    text = "Alice met Bob. Carol met Dan."
    assert evidence_sentence(text, "carol", "Dan") == "Carol met Dan."
    assert evidence_sentence(text, "Bob", "Zed") == "Alice met Bob."
    assert evidence_sentence(text, "Yan", "Zed") == text


# --------------------------------------------------------------------------- factory


def test_get_extractor_and_combined():
    assert isinstance(get_extractor("anchor"), AnchorExtractor)
    assert isinstance(get_extractor("llm"), LLMExtractor)
    with pytest.raises(ConfigError, match="unknown extractor"):
        get_extractor("spacy-magic")
    both = get_extractor("anchor+anchor")
    assert isinstance(both, CombinedExtractor) and both.name == "anchor+anchor"
    assert len(both.extract_batch([EDIT])[0]) == 1  # duplicates dropped
