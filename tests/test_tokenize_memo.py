"""kgtool.core.text.tokenize keeps what it made for short texts: the same tokens, a list of the caller's own."""
from __future__ import annotations

from kgtool.core.text import _MEMO_CHARS, _tokenize, tokenize


def test_a_remembered_text_gives_the_same_tokens_in_a_list_of_its_own():
    text = "the person who founded Apple's rival in 1976"
    first = tokenize(text)
    first.append("changed by its caller")
    again = tokenize(text)
    assert again is not first and len(again) == len(first) - 1
    assert [t.text for t in again] == ["the", "person", "who", "founded", "Apple's", "rival", "in", "1976"]
    assert [t.content for t in again] == [False, True, False, True, True, True, False, False]
    # the excluded spans are part of what is remembered, however they are written
    assert [t.text for t in tokenize(text, [(23, 30)])] == ["the", "person", "who", "founded", "rival", "in", "1976"]
    assert tokenize(text, [[23, 30]]) == tokenize(text, ((23, 30),))
    assert [t.text for t in tokenize(text)] == [t.text for t in again]


def test_long_texts_are_not_kept():
    before = _tokenize.cache_info().currsize
    long_text = "word " * (_MEMO_CHARS // 5 + 10)
    assert len(tokenize(long_text)) == _MEMO_CHARS // 5 + 10
    assert _tokenize.cache_info().currsize == before
    tokenize("a short one, kept")
    assert _tokenize.cache_info().currsize == before + 1
