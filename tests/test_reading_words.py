"""Closed-class English lives in kgtool/reason/reading/words.py, and the front end reads it from there
(issue 44): one definition per set, drifted copies kept apart by name, and the front end's own word
lists at most half of what they were (97 literal word sets before the move, counted by
bench/front_end_counts.py)."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from kgtool.reason import question, roles, text_evidence
from kgtool.reason.agents.offline import c2rag_compare, c2rag_spans, gloss_fit
from kgtool.reason.reading import form as answer_form
from kgtool.reason.reading import words

REPO = Path(__file__).resolve().parent.parent
BEFORE = 97  # literal word sets of the front end at 77633d9


def _sets() -> dict[str, frozenset]:
    return {name: value for name, value in vars(words).items() if isinstance(value, frozenset)}


def test_every_set_is_a_frozen_set_of_lower_case_words():
    sets = _sets()
    assert len(sets) >= 25
    for name, value in sets.items():
        assert name.isupper(), name
        assert len(value) >= 2, name
        assert all(re.fullmatch(r"'?[a-z]+", w) for w in value), (name, sorted(value))


def test_the_front_end_reads_its_grammar_from_one_place():
    assert question.FUNCTION_WORDS is words.FUNCTION_WORDS
    assert question.DETERMINERS is words.DETERMINERS and roles.DETERMINERS is words.DETERMINERS
    assert roles._ARTICLES is words.ARTICLES and answer_form._LEAD is words.ARTICLES
    assert answer_form._DETERMINERS is words.ARTICLES and text_evidence.ARTICLES is words.ARTICLES
    assert question._DO is words.DO_FORMS and roles._DO is words.DO_FORMS
    assert c2rag_spans._OPENERS is words.CLAUSE_OPENERS
    assert c2rag_compare._TRUE is words.TRUE_WORDS and c2rag_compare._FALSE is words.FALSE_WORDS
    assert words.FREE_RELATIVES <= gloss_fit._CLAUSE_OPENERS
    # the irregular participles were written twice and had drifted ("wed" in one only)
    assert question.IRREGULAR_PARTICIPLES is words.IRREGULAR_PARTICIPLES is roles.IRREGULAR_PARTICIPLES
    assert all(question._is_participle(w) and roles._participle(w) for w in ("wed", "born", "run"))


def test_drifted_copies_keep_their_own_names():
    # the status and reading modules' "be" is the finite forms, the roles' every form: merging them
    # would change what either reads
    assert words.BE_FINITE < words.BE_FORMS and question._BE is words.BE_FINITE and roles._BE is words.BE_FORMS
    # the answer form's opening auxiliaries are a subset of the reading's, without "be"'s non-finite forms
    assert words.QUESTION_AUXILIARIES < words.AUXILIARIES and answer_form._AUX is words.QUESTION_AUXILIARIES


def test_the_front_end_holds_at_most_half_its_word_sets():
    spec = importlib.util.spec_from_file_location("front_end_counts", REPO / "bench" / "front_end_counts.py")
    counter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(counter)
    package = REPO / "kgtool"
    files = sorted({p for pattern in counter.FRONT_END for p in package.glob(pattern)})
    sets = sum(counter.count(p)[0] for p in files if p.relative_to(package).as_posix() not in counter.ALLOWED)
    assert sets * 2 <= BEFORE, f"{sets} word sets in the front end outside reading/words.py"
