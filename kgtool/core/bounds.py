"""Bounds on the user text that reaches the database: a question's size, its words', the full-text queries.

A question is text a person typed or a file holds; a pasted blob (one 200 KB "word") made the fuzzy name
lookup send the whole word to Lucene as a fuzzy term and the JVM ran out of memory. So:

- a question longer than `max_question_chars` (default 2,000) or with a word longer than `max_word_chars`
  (default 100; names, numbers and URLs fit) is refused before anything links it, with an InputError that
  says which bound it passed and the setting that moves it (KGTOOL_MAX_QUESTION_CHARS, KGTOOL_MAX_WORD_CHARS);
- whatever the bounds are set to, a full-text query keeps at most `MAX_QUERY_TERMS` words of at most
  `MAX_TERM_CHARS` characters, and a fuzzy (edit-distance) term at most `MAX_FUZZY_TERM_CHARS`: longer words
  are left out of those queries (a word that long is not a misspelt name).
"""
from __future__ import annotations

from kgtool.errors import InputError

MAX_TERM_CHARS = 64
MAX_FUZZY_TERM_CHARS = 32
MAX_QUERY_TERMS = 200  # Lucene refuses a query of more than 1,024 clauses


def check_question(question: str, *, max_chars: int = 2000, max_word_chars: int = 100) -> None:
    """InputError when `question` passes a bound (see the module docstring)."""
    if len(question) > max_chars:
        raise InputError(f"the question is {len(question):,} characters long, more than the {max_chars:,} a question "
                         "may have; shorten it (or raise KGTOOL_MAX_QUESTION_CHARS)")
    longest = max(question.split(), key=len, default="")
    if len(longest) > max_word_chars:
        raise InputError(f"the question has a word of {len(longest):,} characters ({longest[:20]!r}...), more than "
                         f"the {max_word_chars} a word may have; split it (or raise KGTOOL_MAX_WORD_CHARS)")


def query_terms(terms, *, max_chars: int = MAX_TERM_CHARS, limit: int = MAX_QUERY_TERMS) -> list[str]:
    """The distinct terms a full-text query may carry: none longer than `max_chars`, at most `limit`."""
    kept = [t for t in dict.fromkeys(terms) if t and len(t) <= max_chars]
    return kept[:limit]
