"""The shared front end on a graph and phrasings it was not written for (issue 24).

The planner-level tests use the invented world of test_offline_agents (an in-memory
GraphView); the method-level test loads the paraphrase development set
(tests/data/paraphrase, written by tests/data/paraphrase/make_set.py) into a real
Neo4j and answers a spread of its questions with every method.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_offline_agents import ToyGraph, fact, matcher  # noqa: F401  (the MiniLM matcher fixture)

from kgtool.core.types import CandidateFact
from kgtool.eval.metrics import chain_matches, exact_match
from kgtool.reason.agents.offline import Thresholds
from kgtool.reason.agents.offline.planner import OfflinePlanner

PARAPHRASE = Path(__file__).parent / "data" / "paraphrase"
METHODS = ("care", "c2rag", "reagent", "safe", "vog")


def plan(graph, matcher, question, **options):  # noqa: F811
    options.setdefault("structured", True)
    return OfflinePlanner(graph, matcher, **options).plan(question)


@pytest.fixture
def graph() -> ToyGraph:
    return ToyGraph()


@pytest.mark.parametrize("question, relations", [
    # possessive chain, of chain, and a mix of both, over the same three relations
    ("What is the capital of Mara Voss's husband's country?", ["spouse", "citizenship", "capital"]),
    ("What is the capital of the country of the husband of Mara Voss?", ["spouse", "citizenship", "capital"]),
    ("What is Mara Voss's husband's country's capital?", ["spouse", "citizenship", "capital"]),
    # a relative clause whose verb follows the topic, and a question frame naming the last relation
    ("Who is the head of state of the country Mara Voss is a citizen of?", ["citizenship", "head_of_state"]),
    ("Which language is spoken in the country that Mara Voss's husband is a citizen of?",
     ["spouse", "citizenship", "language"]),
    # four hops, the last one said by the frame
    ("Which language is spoken in the country of the head of state of the country of Ilya Brandt?",
     ["citizenship", "head_of_state", "citizenship", "language"]),
])
def test_plans_follow_the_question_structure(graph, matcher, question, relations):  # noqa: F811
    found = plan(graph, matcher, question)
    assert found.relations == relations
    assert not found.unexplained


@pytest.mark.parametrize("question, relations", [
    # a bare complement next to the name joins its noun when the other layers have articles
    ("What is the capital of the country of citizenship of Ilya Brandt?", ["citizenship", "capital"]),
    # quotes around the name belong to it: the clause's verb is not the quote's
    ('What is the capital of the country where the spouse of "Mara Voss" holds citizenship?',
     ["spouse", "citizenship", "capital"]),
])
def test_plans_of_complements_and_quoted_names(graph, matcher, question, relations):  # noqa: F811
    found = plan(graph, matcher, question)
    assert found.relations == relations
    assert not found.unexplained


@pytest.mark.parametrize("question, topic, phrases", [
    # the layers with articles make "city of birth" one phrase; without them ("the flimp of zorb
    # of T", tests/test_question_parse.py) each noun stays a layer
    ("Which glorp is the flimp of the city of birth of Quux Blarg?", "Quux Blarg", ["city of birth", "flimp"]),
    # an article before the name is the name's; the clause's verb goes to its own layer
    ("What is the zorb of the country where the flimp of the Quux Blarg is a citizen of?", "Quux Blarg",
     ["flimp", "country where is citizen of", "zorb"]),
    # a name modifying the noun after it ('the "Quux Blarg" performer'), then the frame's verb
    ('Which glorp is the zorb of the "Quux Blarg" flimp located in?', "Quux Blarg",
     ["flimp", "zorb", "Which glorp is located in"]),
    # no frame and no auxiliary: the subject's last word is the sentence's verb
    ("The zorb of Quux Blarg's flimp lies in which glorp?", "Quux Blarg", ["flimp", "zorb", "lies in which glorp"]),
])
def test_the_reader_on_shapes_of_the_paraphrase_set(question, topic, phrases):
    from kgtool.reason.question import read_question
    start = question.index(topic)
    reading = read_question(question, (start, start + len(topic)))
    assert [s.text for s in reading.required] == phrases


def test_a_question_stopping_early_is_not_taken_for_a_shorter_one(graph, matcher):  # noqa: F811
    """Every phrase needs its hop: "the capital of the country of X's husband" is three hops, not one."""
    found = plan(graph, matcher, "What is the capital of the country of the husband of Mara Voss?")
    assert len(found.relations) == 3
    assert found.entities[-1] == "lindgrad"


def test_unexplained_lists_the_phrases_no_hop_explains(graph, matcher):  # noqa: F811
    """A relation the graph lacks (no "favourite colour" anywhere) is reported, not hidden."""
    found = plan(graph, matcher, "What is the favourite colour of Mara Voss's husband?")
    assert found.unexplained
    assert any("colour" in phrase for phrase in found.unexplained)


def test_facts_stated_by_edits_or_fact_files_outrank_passage_facts(matcher):  # noqa: F811
    """The same hop stated by a fact file (Veldoria) and read from a passage (Caldera, with a
    relation phrased by the text): where the stated relation explains the phrase, the
    passage's does not compete (by default); with the prior switched off (1.0) the text's
    wording, which fits the question better, wins."""
    graph = ToyGraph()
    text_fact = fact("t1", "mara", "citizenship", "caldera")
    text_fact = CandidateFact(**{**text_fact.__dict__, "fact_id": "t1", "relation": "is a national of",
                                 "relation_id": "national_of", "stated": False})
    graph.add(text_fact)
    graph_phrases = graph.relation_phrases

    def phrases(key):
        return ["is a national of", "{} is a national of"] if key == "national_of" else graph_phrases(key)

    graph.relation_phrases = phrases
    question = "Mara Voss is a national of which country?"
    default = plan(graph, matcher, question)
    assert default.entities == ["veldoria"]  # the fact file's citizenship, not the passage's claim
    equal = plan(graph, matcher, question, thresholds=Thresholds(text_prior=1.0, structured=True))
    assert equal.entities[0] == "caldera"  # without the prior the text's own wording fits best


def _spread(rows, per_hops):
    """A fixed spread of the set: every k-th question of each hop count."""
    out = []
    for hops in (1, 2, 3, 4):
        group = [r for r in rows if r["hops"] == hops]
        step = max(1, len(group) // per_hops)
        out += group[::step][:per_hops]
    return out


def test_every_method_answers_the_paraphrase_set_with_the_right_chains(kg, monkeypatch):
    """A real Neo4j holding the paraphrase KG: each method answers a spread of 1-4 hop questions;
    the answers and the chains (each hop's entity) must match the gold ones for most of them."""
    monkeypatch.setattr(kg.settings, "offline_structured", True)
    report = kg.ingest_facts(PARAPHRASE / "kg.jsonl")
    assert report.facts == sum(1 for _ in open(PARAPHRASE / "kg.jsonl"))
    rows = [json.loads(line) for line in open(PARAPHRASE / "questions.jsonl")]
    sample = _spread(rows, per_hops=4)
    assert {r["hops"] for r in sample} == {1, 2, 3, 4}
    for method in METHODS:
        right = chains = 0
        for row in sample:
            answer = kg.answer(row["question"], method=method, agents="offline")
            right += bool(exact_match(answer.answer, row["answers"]))
            chains += bool(chain_matches(answer.chain, [(h,) for h in row["hop_answers"]]))
        # The level the structured reading reaches today (care: 12 of 16 right; the word-coverage
        # planner gets about 6): a floor against regressions, not issue 24's 0.95 target.
        assert right >= 10, (method, right, len(sample))
        assert chains >= 10, (method, chains, len(sample))


def _plan_of(relations, unexplained):
    from kgtool.reason.agents.offline.common import OfflinePlan
    return OfflinePlan(subquestions=["q"] * len(relations), relations=list(relations), unexplained=list(unexplained))


def test_choose_takes_the_reading_that_leaves_fewer_phrases_unexplained():
    """Between the two searches' plans: fewer unexplained phrases first, then the longer path,
    then the structured reading (it follows the question's order)."""
    from kgtool.reason.agents.offline.planner import choose
    longer_guess = _plan_of(["a", "b", "c", "d"], ["holds citizenship", "performer"])
    shorter_whole = _plan_of(["a", "b", "c"], [])
    assert choose(longer_guess, shorter_whole) is shorter_whole  # the structured one read past the question
    assert choose(shorter_whole, longer_guess) is shorter_whole
    structured, coverage = _plan_of(["a", "b"], []), _plan_of(["a"], [])
    assert choose(structured, coverage) is structured  # equally explained: the longer path
    same_s, same_c = _plan_of(["a", "b"], []), _plan_of(["b", "a"], [])
    assert choose(same_s, same_c) is same_s  # a tie: the structured reading's order
    assert choose(same_s, _plan_of([], ["x"])) is same_s  # the coverage search found no hop


def test_a_phrase_saying_a_relations_definition_fits_it(graph, matcher):  # noqa: F811
    """WordNet defines "capital" (third sense) as "a seat of government": the phrase says the
    definition, so the capital hop explains it; verbs are read in their base form."""
    from kgtool.reason.agents.offline.gloss_fit import DEFINED_FIT, GlossScorer
    from kgtool.reason.lexicon import Lexicon
    lexicon = Lexicon.load()
    assert lexicon is not None
    assert [lexicon.verb_base(w) for w in ("gave", "given", "ran")] == ["give", "give", "run"]
    found = plan(graph, matcher, "What is the seat of government of the country of citizenship of Ilya Brandt?")
    assert found.relations == ["citizenship", "capital"]
    assert not found.unexplained
    scorer = GlossScorer(matcher, lexicon)
    capital, spouse = (matcher.profile(k, [label]) for k, label in (("capital", "capital"), ("spouse", "spouse")))
    assert scorer.score("seat of government", capital) >= DEFINED_FIT
    assert not scorer.defines("seat of government", spouse)
    assert not scorer.defines("government", capital)  # one word could be a chance word of a definition


class _Rescoring:
    """A stand-in for StructuredSearch.rescore: the score and unexplained count it is given."""

    def __init__(self, score, missing):
        self.result = (score, missing)

    def rescore(self, reading, facts):
        return self.result


def _coverage_plan(relations, explained, unexplained=()):
    from kgtool.reason.agents.offline.common import OfflinePlan
    ids = [f"f{k}" for k in range(len(relations))]
    plan = OfflinePlan(subquestions=["q"] * len(relations), topic_id="mara", relations=list(relations),
                       directions=["out"] * len(relations), entities=[f"e{k}" for k in range(len(relations))],
                       facts=ids, explained=[list(e) for e in explained], unexplained=list(unexplained))
    plan.topic_span = (0, 4)
    neighbours = {("mara" if k == 0 else f"e{k - 1}"): [CandidateFact(
        fact_id=fid, head_id="x", head="x", relation=r, relation_id=r, tail_id=f"e{k}", tail="y", evidence="")]
        for k, (fid, r) in enumerate(zip(ids, relations))}
    return plan, neighbours


def test_weigh_reads_the_coverage_path_as_the_structured_search_reads_its_own():
    """The coverage path wins when it scores higher on the structured search's scale (a path the
    beam missed) or leaves fewer phrases unexplained counted alike; a longer coverage path wins a
    tie only when every hop explains a word (a hop explaining none is a detour)."""
    from kgtool.reason.agents.offline.plan_structured import weigh
    structured = _plan_of(["a", "b"], [])
    structured.score = 1.0
    detour, nb = _coverage_plan(["x", "a", "b"], [[], ["governs"], ["city"]])
    assert weigh(_Rescoring(0.5, 0), "Mara ...", structured, detour, nb) is structured
    assert weigh(_Rescoring(1.5, 0), "Mara ...", structured, detour, nb) is detour  # the beam missed it
    every, nb = _coverage_plan(["a", "b", "c"], [["born"], ["country"], ["continent"]])
    assert weigh(_Rescoring(0.5, 0), "Mara ...", structured, every, nb) is every
    # leftovers counted alike: the coverage plan's own count (none) is not the one compared
    lenient, nb = _coverage_plan(["a"], [["mum"]], unexplained=[])
    weak = _plan_of(["a", "b"], ["old man"])
    weak.score = 0.6
    assert weigh(_Rescoring(None, 2), "Mara ...", weak, lenient, nb) is weak


def test_the_planner_embeds_a_new_question_in_one_model_call(matcher):  # noqa: F811
    """Both searches' strings (every topic mention's words, the structured reading's phrases and
    their synonyms) go to the model together: one call for a question whose relations the
    planner has met before, however many phrases it has."""
    from kgtool.reason.relmatch import RelationMatcher
    calls = []
    inner = matcher.encoder.inner

    class Counting:
        def encode(self, texts):
            calls.append(list(texts))
            return inner.encode(texts)

    counting = RelationMatcher(Counting())
    planner = OfflinePlanner(ToyGraph(), counting, thresholds=Thresholds(structured=True))
    planner.plan("What is the capital of the country where the spouse of Mara Voss holds citizenship?")
    calls.clear()
    found = planner.plan("What is the capital city of the nation of Mara Voss's better half?")
    assert found.relations == ["spouse", "citizenship", "capital"]
    assert len(calls) == 1, calls
