"""One source's relations do not overrule another's in the reading check.

A store can hold an edit corpus about people beside a user's own graph about places. The reading check
(kgtool.reason.explains) lets a relation the question names better than the chain's hop count against
the hop ("ethnicity" names `ethnic group`, not the `country of citizenship` taken); that relation must be
said of entities like the hop's own (its subject, or another subject of the hop's relation). Measured: the MQuAKE dev edits in one store with a small graph that
has a `country` relation (a city's) lost 34 of care's 204 answered, every one right, to "'home country'
names the relation 'country' better than the chain's hop does".
"""
from __future__ import annotations

import pytest

from helpers import ingest_triples

PEOPLE = [("Ilse Varnok", "country of citizenship", "Arvenia"), ("Teodor Quill", "country of citizenship", "Arvenia"),
          ("Mara Lind", "country of citizenship", "Arvenia"), ("Arvenia", "official language", "Arvenian"),
          ("Teodor Quill", "ethnic group", "Quellish people"), ("Mara Lind", "ethnic group", "Quellish people")]
PLACES = [("Solm", "country", "Vardonia"), ("Ketterby", "country", "Vardonia"), ("Vardonia", "capital", "Solm")]
QUESTION = "What is the official language of the home country of Ilse Varnok?"


@pytest.fixture
def people_kg(kg, tmp_path):
    ingest_triples(kg, tmp_path / "people.jsonl", PEOPLE)
    return kg


@pytest.mark.parametrize("method", ["care", "c2rag"])
def test_another_sources_relation_does_not_overrule_the_hop(people_kg, tmp_path, method):
    before = people_kg.answer(QUESTION, method=method, agents="offline")
    assert (before.answer, before.status) == ("Arvenian", "answered"), before.reason
    ingest_triples(people_kg, tmp_path / "places.jsonl", PLACES)  # a user's graph: `country` of its cities
    after = people_kg.answer(QUESTION, method=method, agents="offline")
    assert (after.answer, after.status) == ("Arvenian", "answered"), after.reason


def test_a_relation_said_of_entities_like_the_hops_still_overrules_it(people_kg):
    """Ilse Varnok has no ethnic group, but other citizens do: her citizenship is no answer to it."""
    result = people_kg.answer("What is the ethnicity of Ilse Varnok?", method="care", agents="offline")
    assert result.status != "answered", (result.answer, result.reason)
