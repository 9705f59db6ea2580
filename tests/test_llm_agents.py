"""CARE's LLM agents over the local HTTP stub: prompts, parsing into the loop's values, validators."""
from __future__ import annotations

import json

import pytest

from kgtool.errors import LLMError
from kgtool.core.types import PLACEHOLDER, CandidateFact, ChainLink, Plan, Verdict
from kgtool.reason.agents.llm import LLMCritic, LLMGenerator, LLMPlanner, LLMSelector
from kgtool.reason.prompts import care

try:
    from stub_llm import Reply, make_client, role_of, stub_llm, stub_settings, task_data  # noqa: F401
except ImportError:  # tests/ imported as a package
    from tests.stub_llm import Reply, make_client, role_of, stub_llm, stub_settings, task_data  # noqa: F401


@pytest.fixture
def client(stub_settings):
    return make_client(stub_settings)


def fact(fid, head, relation, tail, evidence, *, head_id=None, tail_id=None, direction="out"):
    return CandidateFact(
        fact_id=fid,
        head_id=head_id or head.lower(),
        head=head,
        relation=relation,
        tail_id=tail_id or tail.lower(),
        tail=tail,
        evidence=evidence,
        direction=direction,
    )


LEAGUE = fact("f1", "League X", "sport", "baseball", "League X is a baseball league.")
SPORT = fact("f2", "baseball", "country of origin", "United Kingdom", "Baseball was first played in the United Kingdom.")
LANG_GREEK = fact("f3", "United Kingdom", "official language", "Greek", "Greek is widely spoken in the United Kingdom.")
LANG_ITALIAN = fact("f4", "United Kingdom", "official language", "Italian", "The official language of the United Kingdom is Italian.")

CHAIN = [
    ChainLink(1, "Which sport is League X associated with?", "League X", LEAGUE, "baseball"),
    ChainLink(2, f"Which country did {PLACEHOLDER} originate in?", "baseball", SPORT, "United Kingdom"),
    ChainLink(3, f"What is the official language of {PLACEHOLDER}?", "United Kingdom", LANG_GREEK, "Greek"),
]


# ------------------------------------------------------------------ planner


def test_planner_returns_a_plan_with_placeholders(stub_llm, client):
    stub_llm.on_role(
        "planner",
        Reply.json(
            {
                "topic": "League X",
                "subquestions": [
                    "Which sport is League X associated with?",
                    "Which country did [ent] originate in?",
                    "What is the official language of [ENT]?",
                ],
            }
        ),
    )
    question = "What is the official language of the country where the sport of League X began?"
    plan = LLMPlanner(client).plan(question)
    assert isinstance(plan, Plan)
    assert plan.topic == "League X"
    assert plan.subquestions[0] == "Which sport is League X associated with?"
    assert all(PLACEHOLDER in q for q in plan.subquestions[1:])
    assert plan.subquestions[1] == "Which country did [ENT] originate in?"  # placeholder spelling normalised
    (request,) = stub_llm.requests
    assert request.messages[0]["content"].startswith("ROLE: planner\n")
    assert task_data(request.messages) == {"question": question}


def test_planner_reasks_when_the_first_subquestion_has_no_topic(stub_llm, client):
    stub_llm.script(
        Reply.json({"topic": "X", "subquestions": ["Who founded [ENT]?"]}),
        Reply.json({"topic": "X", "subquestions": ["Who founded X?"]}),
    )
    plan = LLMPlanner(client).plan("Who founded X?")
    assert plan.subquestions == ["Who founded X?"]
    assert "first sub-question must name the topic entity" in stub_llm.requests[1].messages[-1]["content"]


@pytest.mark.parametrize(
    "value, problem",
    [
        ({"subquestions": []}, "non-empty list"),
        ({"subquestions": ["Who is A?", "Where was he born?"]}, "sub-question 2 must refer"),
        ({"subquestions": ["Who is A?", 3]}, "sub-question 2 must be a non-empty string"),
        ({"topic": 5, "subquestions": ["Who is A?"]}, "topic"),
        ({"subquestions": ["Q?"] + ["Q [ENT]?"] * 11}, "too many"),
    ],
)
def test_plan_validator_rejects_bad_plans(value, problem):
    with pytest.raises(ValueError, match=problem):
        care.validate_plan(value)


def test_plan_validator_accepts_a_bare_list():
    plan = care.validate_plan(["Who is A?", "Where is [ENT]?"])
    assert plan == Plan(subquestions=["Who is A?", "Where is [ENT]?"], topic=None)


# ----------------------------------------------------------------- selector


def test_selector_judgements_are_aligned_with_the_candidates(stub_llm, client):
    loop = fact("f9", "United Kingdom", "official language", "United Kingdom", "The United Kingdom is the United Kingdom.",
                head_id="uk", tail_id="uk")
    incoming = fact("f5", "Rome", "capital of", "United Kingdom", "Rome is the capital of the United Kingdom.",
                    direction="in")
    candidates = [LANG_GREEK, LANG_ITALIAN, loop, incoming]
    # the model answers out of order and misses the self-loop
    stub_llm.on_role(
        "selector",
        Reply.json(
            [
                {"id": "c2", "entity_match": True, "evidence_entails": True, "relation_fits": True,
                 "not_self_loop": True, "score": 0.95, "reason": "states the official language"},
                {"id": "c4", "entity_match": True, "evidence_entails": True, "relation_fits": False,
                 "not_self_loop": True, "score": 0.4},
                {"id": "c1", "entity_match": True, "evidence_entails": False, "relation_fits": True,
                 "not_self_loop": True, "score": 0.0, "reason": "spoken, not official"},
                {"id": "c3", "score": 0.7},
            ]
        ),
    )
    judgements = LLMSelector(client).judge("What is the official language of United Kingdom?", "United Kingdom", candidates)
    assert [j.fact_id for j in judgements] == ["f3", "f4", "f9", "f5"]
    greek, italian, self_loop, wrong_relation = judgements
    assert italian.passes and italian.score == 0.95 and "official" in italian.reason
    assert not greek.passes and not greek.evidence_entails and greek.score == 0.0
    assert not self_loop.not_self_loop and self_loop.score == 0.0  # enforced from the graph ids
    assert not wrong_relation.relation_fits and wrong_relation.score == 0.0  # a failed rule zeroes the score
    sent = task_data(stub_llm.requests[0].messages)
    assert sent["entity"] == "United Kingdom"
    assert [c["id"] for c in sent["candidates"]] == ["c1", "c2", "c3", "c4"]
    assert sent["candidates"][1]["evidence"] == LANG_ITALIAN.evidence
    assert sent["candidates"][1]["answer"] == "Italian"
    assert sent["candidates"][3]["answer"] == "Rome"  # an incoming fact leads to its head


def test_selector_reasks_when_a_candidate_is_missing(stub_llm, client):
    stub_llm.script(
        Reply.json([{"id": "c1", "score": 0.2}]),
        "```json\n" + json.dumps([{"id": "c1", "score": 0.2}, {"id": "c2", "score": 0.9}]) + "\n```",
    )
    judgements = LLMSelector(client).judge("official language?", "United Kingdom", [LANG_GREEK, LANG_ITALIAN])
    assert [j.score for j in judgements] == [0.2, 0.9]
    assert "c2 have no judgement" in stub_llm.requests[1].messages[-1]["content"]


def test_selector_with_no_candidates_makes_no_call(stub_llm, client):
    assert LLMSelector(client).judge("q?", "e", []) == []
    assert stub_llm.requests == []


@pytest.mark.parametrize(
    "value, problem",
    [
        ([{"id": "c1", "score": 1.5}, {"id": "c2", "score": 0}], "scores run from 0 to 1"),
        ([{"id": "c1", "score": "high"}, {"id": "c2", "score": 0}], "number from 0 to 1"),
        ([{"id": "c1", "score": 1}, {"id": "c7", "score": 0}], "unknown candidate id"),
        ([{"id": "c1", "score": 1}, {"id": "c1", "score": 0}], "judged twice"),
        ([{"id": "c1", "score": 1, "entity_match": "maybe"}, {"id": "c2", "score": 0}], "true or false"),
        ({"verdict": "fine"}, "JSON list"),
    ],
)
def test_selector_validator_rejects_bad_output(value, problem):
    with pytest.raises(ValueError, match=problem):
        care.selector_validator(["f1", "f2"])(value)


# ------------------------------------------------------------------- critic


def test_critic_rejection_becomes_a_verdict(stub_llm, client):
    stub_llm.on_role(
        "critic",
        'Audit done.\n{"valid": false, "problem_steps": [3, 2], "error_type": "Bridge consistency", '
        '"explanation": "step 2 does not lead where step 3 starts"}',
    )
    verdict = LLMCritic(client).review("What language?", CHAIN, "Greek")
    assert verdict == Verdict(
        valid=False, failed_hop=2, error_type="bridge_continuity", explanation="step 2 does not lead where step 3 starts"
    )
    sent = task_data(stub_llm.requests[0].messages)
    assert sent["final_answer"] == "Greek"
    assert [s["step"] for s in sent["steps"]] == [1, 2, 3]
    assert sent["steps"][1]["sub_question"] == "Which country did baseball originate in?"
    assert sent["steps"][2]["fact"] == {"head": "United Kingdom", "relation": "official language", "tail": "Greek"}
    assert sent["steps"][2]["evidence"] == LANG_GREEK.evidence


def test_critic_reject_then_accept_in_rule_mode(stub_llm, client):
    reject = Reply.json({"valid": False, "problem_steps": [3], "error_type": "grounding", "explanation": "no"})
    accept = Reply.json({"valid": True, "problem_steps": [], "error_type": None, "explanation": "ok"})
    stub_llm.on_role("critic", reject, accept)
    critic = LLMCritic(client)
    first = critic.review("What language?", CHAIN, "Greek")
    fixed = CHAIN[:2] + [ChainLink(3, CHAIN[2].subquestion, "United Kingdom", LANG_ITALIAN, "Italian")]
    second = critic.review("What language?", fixed, "Italian")
    third = critic.review("What language, again?", fixed, "Italian")
    assert (first.valid, first.failed_hop, first.error_type) == (False, 3, "grounding")
    assert second.valid and second.failed_hop is None and second.error_type is None
    assert third.valid  # the last reply of a rule repeats
    assert [r.role for r in stub_llm.requests] == ["critic"] * 3


def test_critic_generated_step_carries_its_evidence(stub_llm, client):
    stub_llm.on_role("critic", Reply.json({"valid": True, "problem_steps": [], "explanation": ""}))
    generated = ChainLink(1, "Which sport is League X associated with?", "League X", None, "baseball",
                          generated=True, evidence="League X plays baseball.")
    assert LLMCritic(client).review("q", [generated], "baseball").valid
    step = task_data(stub_llm.requests[0].messages)["steps"][0]
    assert step["fact"] is None and step["generated"] is True and step["evidence"] == "League X plays baseball."


@pytest.mark.parametrize(
    "value, problem",
    [
        ({"valid": False, "problem_steps": [4], "error_type": "grounding"}, "steps are numbered 1 to 3"),
        ({"valid": False, "problem_steps": [0], "error_type": "grounding"}, "numbered 1 to 3"),
        ({"valid": False, "problem_steps": [], "error_type": "grounding"}, "must name the failing step"),
        ({"valid": False, "problem_steps": [1], "error_type": "vibes"}, "error_type"),
        ({"valid": True, "problem_steps": [2]}, "make them agree"),
        ({"valid": "perhaps"}, "true or false"),
        ({"explanation": "fine"}, '"valid"'),
    ],
)
def test_critic_validator_rejects_bad_output(value, problem):
    with pytest.raises(ValueError, match=problem):
        care.critic_validator(3)(value)


def test_critic_with_an_empty_chain_rejects_without_a_call(stub_llm, client):
    verdict = LLMCritic(client).review("q", [], "")
    assert not verdict.valid and verdict.error_type == "final_deduction"
    assert stub_llm.requests == []


# ---------------------------------------------------------------- generator


def test_generator_answers_from_the_evidence(stub_llm, client):
    stub_llm.on_role("generator", Reply.json({"answer": "italian", "evidence": 2, "reason": "stated"}))
    evidence = [LANG_GREEK.evidence, LANG_ITALIAN.evidence]
    answer = LLMGenerator(client).generate(f"What is the official language of {PLACEHOLDER}?", "United Kingdom", evidence)
    assert answer == "italian"
    sent = task_data(stub_llm.requests[0].messages)
    assert sent["sub_question"] == "What is the official language of United Kingdom?"
    assert sent["evidence"] == [{"n": 1, "text": evidence[0]}, {"n": 2, "text": evidence[1]}]


def test_generator_returns_none_when_evidence_does_not_answer(stub_llm, client):
    stub_llm.on_role("generator", Reply.json({"answer": None, "evidence": None, "reason": "not stated"}))
    assert LLMGenerator(client).generate("Who founded X?", "X", ["X sells shoes."]) is None


def test_generator_rejects_answers_not_found_in_the_evidence(stub_llm, stub_settings):
    stub_llm.default = Reply.json({"answer": "English", "evidence": 1})  # parametric memory, not evidence
    client = make_client(stub_settings, max_reasks=1)
    with pytest.raises(LLMError, match="does not appear in the evidence"):
        LLMGenerator(client).generate("official language?", "United Kingdom", [LANG_ITALIAN.evidence])
    assert len(stub_llm.requests) == 2


def test_generator_without_evidence_makes_no_call(stub_llm, client):
    assert LLMGenerator(client).generate("q?", "e", ["", "  "]) is None
    assert stub_llm.requests == []


# -------------------------------------------------------------- shared usage


def test_agents_sharing_a_client_split_usage_by_role(stub_llm, client):
    stub_llm.on_role("planner", Reply(content=json.dumps({"topic": "A", "subquestions": ["Who is A?"]}),
                                      prompt_tokens=10, completion_tokens=5))
    stub_llm.on_role("critic", Reply(content=json.dumps({"valid": True, "problem_steps": []}),
                                     prompt_tokens=20, completion_tokens=3))
    planner, critic, selector = LLMPlanner(client), LLMCritic(client), LLMSelector(client)
    planner.plan("Who is A?")
    critic.review("Who is A?", CHAIN[:1], "baseball")
    critic.review("Who is A?", CHAIN[:1], "baseball")  # cached: free
    assert (planner.usage.calls, planner.usage.tokens) == (1, 15)
    assert (critic.usage.calls, critic.usage.cached_calls, critic.usage.tokens) == (1, 1, 23)
    assert selector.usage.calls == 0
    assert client.usage.tokens == planner.usage.tokens + critic.usage.tokens


def test_every_prompt_starts_with_its_role_tag():
    specs = [
        care.planner_prompt("q"),
        care.selector_prompt("q", "e", [LEAGUE]),
        care.critic_prompt("q", CHAIN, "Greek"),
        care.generator_prompt("q", "e", ["s"]),
    ]
    assert [care.role_of(s.system) for s in specs] == list(care.ROLES)
    assert [role_of([{"role": "system", "content": s.system}]) for s in specs] == list(care.ROLES)
    for spec in specs:
        json.loads(spec.user)  # the task data is one JSON object
