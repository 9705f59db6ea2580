"""The planner on a graph whose relations name what their objects are (kinds.py).

An invented world written the way a user writes a fact file: plain snake_case labels, no
corpus phrasings, no type facts. Its `country` relation says which entities are countries
(the objects of `country` facts); the questions name the answer's kind ("Which country's
...", "the country T is a citizen of") and the planner must not add a hop for that word when
the path already stands on a country. Planner-level, so an in-memory GraphView as in
test_offline_agents (the eval sets run the same planner on Neo4j).
"""
from __future__ import annotations

from collections import defaultdict

import pytest
from test_offline_agents import matcher  # noqa: F401  (the MiniLM matcher fixture)

from kgtool.core.types import CandidateFact
from kgtool.reason.agents.offline import first_per_group
from kgtool.reason.kinds import is_kind, kinds_of, label_kind
from kgtool.reason.agents.offline.planner import OfflinePlanner

TRIPLES = [
    ("Morvania", "capital", "Eskeld"), ("Morvania", "currency", "morvan florin"),
    ("Morvania", "continent", "Utheria"), ("Morvania", "official_language", "Morvanish"),
    ("Pellasca", "capital", "Tirno"), ("Pellasca", "currency", "pellan mark"),
    ("Pellasca", "continent", "Sarune"), ("Pellasca", "official_language", "Pellan"),
    ("Eskeld", "country", "Morvania"), ("Brisk", "country", "Morvania"),
    ("Tirno", "country", "Pellasca"), ("Vosk", "country", "Pellasca"),
    ("Odile Marsh", "born_in", "Brisk"), ("Odile Marsh", "citizen_of", "Pellasca"),
    ("Kasimir Threll", "born_in", "Tirno"), ("Kasimir Threll", "citizen_of", "Morvania"),
    ("Odile Marsh", "spouse", "Kasimir Threll"),
]


def _id(name: str) -> str:
    return name.lower().replace(" ", "-")


class FactFileGraph:
    """A GraphView over triples read as `kgtool ingest facts` reads them (label = relation, spaced)."""

    def __init__(self, triples=TRIPLES):
        self.names: dict[str, str] = {}
        self.pools: dict[str, list[CandidateFact]] = defaultdict(list)
        for k, (head, relation, tail) in enumerate(triples):
            h, t = _id(head), _id(tail)
            self.names[h], self.names[t] = head, tail
            f = CandidateFact(fact_id=f"f{k}", head_id=h, head=head, relation=relation.replace("_", " "),
                              relation_id=None, tail_id=t, tail=tail, evidence=f"{head} {relation} {tail}.")
            self.pools[h].append(f)
            self.pools[t].append(CandidateFact(**{**f.__dict__, "direction": "in"}))

    def neighborhoods(self, entity_ids, per_group):
        return {e: first_per_group(list(self.pools.get(e, [])), per_group) for e in entity_ids}

    def link_mentions(self, text):
        low, found = text.lower(), []
        for eid, name in sorted(self.names.items(), key=lambda kv: -len(kv[1])):
            k = low.find(name.lower())
            if k >= 0 and not any(k < e and s < k + len(name) for s, e, _i, _n in found):
                found.append((k, k + len(name), eid, text[k:k + len(name)]))
        return sorted(found, key=lambda m: (-(m[1] - m[0]), m[0]))

    def entity_name(self, entity_id):
        return self.names.get(entity_id, "")

    def relation_phrases(self, relation_key):
        return [relation_key.removeprefix("rel:")]


def planned_path(matcher, question: str, triples=TRIPLES) -> list[str]:
    """The names of the entities the structured planner's path for `question` stands on, in order."""
    graph = FactFileGraph(triples)
    plan = OfflinePlanner(graph, matcher, structured=True).plan(question)
    return [graph.entity_name(e) for e in plan.entities]


def test_a_label_names_its_objects_kind_by_its_head_noun():
    assert label_kind("country") == label_kind("countries")
    assert label_kind("country of citizenship") == label_kind("country")
    assert label_kind("official language") == label_kind("language")
    # a label ending in a preposition says what its subject does, not what its object is
    assert label_kind("citizen of") is None and label_kind("born in") is None
    graph = FactFileGraph()
    pool = graph.neighborhoods(["morvania"], 10)["morvania"]
    kinds = kinds_of(pool, lambda f: f.relation)
    assert is_kind("country", kinds) and not is_kind("city", kinds)
    # the facts a country is the subject of say nothing of what it is
    assert not is_kind("capital", kinds)


@pytest.mark.parametrize("question, names", [
    # the type word names what the currency fact read backwards reaches: no `country` hop after it
    # (read backwards from the country, `country` reaches a city of it)
    ("Which country's currency is the pellan mark?", ["Pellasca"]),
    # the head of the relative clause is the kind of what the clause reaches: no split hop for it
    ("What is the capital of the country Odile Marsh is a citizen of?", ["Pellasca", "Tirno"]),
])
def test_no_hop_for_a_kind_the_path_already_stands_on(matcher, question, names):  # noqa: F811
    assert planned_path(matcher, question) == names


def test_a_kind_hop_is_still_taken_where_the_path_stands_on_another_kind(matcher):  # noqa: F811
    """The birthplace is a city; the country the question asks for is one `country` hop further."""
    assert planned_path(matcher, "In which country was Kasimir Threll born?") == ["Tirno", "Pellasca"]


@pytest.mark.parametrize("question, names", [
    # the birthplace is a city; the currency the question asks for is its country's, past a link it
    # leaves implicit
    ("What currency is used where Kasimir Threll was born?", ["Tirno", "Pellasca", "pellan mark"]),
    # no relation of the graph names cities: the kind is only a hint, and the path stays where it is
    ("What city was Kasimir Threll born in?", ["Tirno"]),
])
def test_a_path_goes_on_to_the_kind_the_question_asks_for(matcher, question, names):  # noqa: F811
    assert planned_path(matcher, question) == names


PLACED = TRIPLES + [("Orvo Observatory", "OPERATES", "Kell Telescope"), ("Orvo Observatory", "LOCATED_IN", "Dunmarsh"),
                    ("Dunmarsh", "LOCATED_IN", "Pellasca"), ("Vell Institute", "LOCATED_IN", "Dunmarsh")]


@pytest.mark.parametrize("question, names", [
    # no relation names cities, but "located in" puts the observatory in a place: the city is one hop on
    ("In what city is the observatory that operates the Kell Telescope?", ["Orvo Observatory", "Dunmarsh"]),
    # a path already standing on a place (something is located in it) stays there
    ("Which city is the Orvo Observatory located in?", ["Dunmarsh"]),
])
def test_a_place_no_relation_names_is_reached_through_the_relation_saying_in(matcher, question, names):  # noqa: F811
    assert planned_path(matcher, question, PLACED) == names


# no relation names countries or cities: "located in" puts a city in its country
NESTED = [("Dunmarsh", "LOCATED_IN", "Pellasca"), ("Brannoc", "LOCATED_IN", "Pellasca"),
          ("Edda Rowe", "BORN_IN", "Dunmarsh"), ("Ivo Tarr", "BORN_IN", "Brannoc"),
          ("Pellasca", "CURRENCY", "pellan mark"), ("Vell Institute", "LOCATED_IN", "Dunmarsh")]


@pytest.mark.parametrize("question, names", [
    # a country names a place by the people who hold it: the birthplace lies in another place, one hop on
    ("In which country was Edda Rowe born?", ["Dunmarsh", "Pellasca"]),
    # a city is a place: the birthplace is one, and the path stays there
    ("In which city was Edda Rowe born?", ["Dunmarsh"]),
])
def test_a_whole_place_is_reached_past_the_place_inside_it(matcher, question, names):  # noqa: F811
    assert planned_path(matcher, question, NESTED) == names
