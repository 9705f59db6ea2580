"""A trace shows a hop the planner asked with a generic template in the relation label's own words."""
from __future__ import annotations

import numpy as np

from kgtool.reason.agents.offline.plan_structured import subquestion_for
from kgtool.reason.relmatch import RelationProfile
from kgtool.reason.subquestions import in_label_words


def _profile(label: str, questions=()) -> RelationProfile:
    return RelationProfile(key=label, phrases=(label,), stems=frozenset(), vectors=np.zeros((1, 4)), label=label,
                           questions=tuple(questions))


def test_a_generic_subquestion_is_shown_as_the_hop_it_asks():
    asked = subquestion_for(_profile("landlocked"), "Norway")
    assert in_label_words(asked) == "Norway -landlocked-> ?"
    backwards = subquestion_for(_profile("capital"), "Oslo", "in")
    assert in_label_words(backwards) == "? -capital-> Oslo"


def test_a_subquestion_in_the_datas_own_words_is_shown_as_it_is():
    asked = subquestion_for(_profile("spouse", ["Who is {} married to?"]), "Ada Lovelace")
    assert in_label_words(asked) == "Who is Ada Lovelace married to?"
    assert in_label_words(None) is None
